-- The mod's package: info.json, settings, locale, and the Factorio 2.0 names it must use.
local P = require("protocol")
local E = require("expect")
local json = require("json")
local fake = require("factorio")

-- Files are read while the runner still has io (the fake hides it from the mod during cases).
local root = arg[0]:match("^(.*)/tests/run%.lua$") or "."
local function read(path)
  local f = assert(io.open(root .. "/" .. path, "rb"))
  local text = f:read("*a")
  f:close()
  return text
end
local info_text = read("info.json")
local settings_text = read("settings.lua")
local locale_text = read("locale/en/locale.cfg")
local sources = {}
for _, path in ipairs({ "control.lua", "scripts/util.lua", "scripts/state.lua", "scripts/events.lua", "scripts/check.lua",
  "scripts/body.lua", "scripts/jobs.lua", "scripts/reads.lua", "scripts/writes.lua", "scripts/rpc.lua",
  "scripts/watch.lua" }) do
  sources[path] = read(path)
end

test("info.json names the mod coop-agent for Factorio 2.0 at the version status reports", function()
  local info = json.decode(info_text)
  E.truthy(info, "info.json is JSON")
  E.eq(info.name, "coop-agent", "name")
  E.eq(info.version, P.version, "version")
  E.eq(info.factorio_version, "2.0", "factorio_version")
  E.truthy(info.title and info.author and info.description, "title, author, description")
  E.eq(info.dependencies, { "base >= 2.0" }, "dependencies")
end)

test("settings.lua declares the body-name and host settings, runtime-global, with locale names", function()
  local declared = {}
  local env = { data = { extend = function(_, list)
    for _, s in ipairs(list) do declared[s.name] = s end
  end } }
  local chunk = assert(load(settings_text, "settings.lua", "t", env))
  chunk()
  E.eq(declared["coop-agent-body-name"].default_value, P.body_name, "body name default")
  E.eq(declared["coop-agent-body-name"].setting_type, "runtime-global", "runtime-global")
  E.eq(declared["coop-agent-host-player"].default_value, "", "host default")
  E.eq(declared["coop-agent-host-player"].allow_blank, true, "host may be blank")
  for name in pairs(declared) do
    E.truthy(locale_text:find("\n" .. name:gsub("%-", "%%-") .. "="), "locale names " .. name)
  end
end)

test("the mod uses Factorio 2.0's storage, never 1.1's global table", function()
  for path, text in pairs(sources) do
    E.truthy(not text:find("[^%w_%.]global%s*%."), path .. " uses global.")
    E.truthy(not text:find("game%.table_to_json") and not text:find("game%.json_to_table"),
      path .. " uses the 1.1 game.*json helpers")
  end
end)

test("the mod never reaches for io, os, loadfile or dofile (the game has none)", function()
  for path, text in pairs(sources) do
    for _, name in ipairs(fake.HIDDEN_GLOBALS) do
      E.truthy(not text:find("[^%w_%.]" .. name .. "[%.%(]"), path .. " uses " .. name)
    end
  end
end)

test("the mod registers /coop-rpc and the player commands once, with help text", function()
  local w = fake.world({ players = { { name = "alice" } } })
  w:start_mod()
  for _, name in ipairs({ "coop-rpc", "coop-stop", "coop-follow", "coop-stay" }) do
    E.truthy(w.commands[name] and w.commands[name].help, name)
  end
end)

-- The fake must refuse what the game refuses, or the specs above would prove less than they say.
test("the fake game refuses unknown keys, invalid objects and read-only writes, like the game", function()
  local w = fake.world({ players = { { name = "alice" } } })
  local chest = w:spawn({ name = "wooden-chest", position = { x = 3, y = 3 }, force = "player" })
  E.truthy(not pcall(function() return chest.no_such_key end), "unknown key")
  E.truthy(not pcall(function() chest.name = "x" end), "read-only key")
  chest.destroy()
  E.eq(chest.valid, false, "destroyed")
  E.truthy(not pcall(function() return chest.name end), "invalid object")
  E.truthy(not pcall(function() return game.surfaces.nauvis.find_entities_filtered({ name = "nope" }) end),
    "unknown entity name in a filter")
  E.truthy(not pcall(function() return io.open end), "no io while the mod runs")
  E.truthy(not pcall(function() return os.time() end), "no os while the mod runs")
  E.truthy(not pcall(function() rawset(_G, "x", nil); _G.forgotten_local = 1 end), "no new globals")
  E.truthy(not pcall(function() return undefined_name end), "no undefined globals")
end)

test("in the fake, a character walks only on the tick its walking_state was set", function()
  local w = fake.world({ players = { { name = "alice", position = { x = 0, y = 0 } } } })
  local c = w:player("alice").character
  c.walking_state = { walking = true, direction = defines.direction.east }
  w:tick(1)
  local x = c.position.x
  E.truthy(x > 0, "moved east")
  w:tick(5)
  E.eq(c.position.x, x, "stopped without a renewed walking_state")
end)
