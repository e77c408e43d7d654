-- The game mod in a fake world, driven over stdin/stdout one JSON line at a time, so a test can
-- put the real Lua mod behind an RCON server and talk to it with the factorio Mod's own client.
--   lua5.2 tests/serve.lua
-- Commands: {"do":"rpc","text":"<json>"} -> {"ok":true,"reply":"<the rcon.print text>"}
--           {"do":"tick","n":N}  {"do":"chat","player":P,"text":T}  {"do":"chats","player":P,"n":N}
--           {"do":"save"}  {"do":"load"}  {"do":"new_map","seed":S}
local here = arg[0]:match("^(.*)/tests/serve%.lua$") or "."
package.path = here .. "/?.lua;" .. here .. "/tests/?.lua;" .. here .. "/tests/fake/?.lua;" .. package.path
local stdin, stdout = io.stdin, io.stdout
local json = require("json")
local fake = require("factorio")
fake.configure(here)
local W = require("world")

local world = W.with_body()
local saved

local commands = {}

function commands.rpc(c)
  local _, raw = world:rpc(c.text)
  return { reply = raw }
end

function commands.tick(c)
  world:tick(c.n or 1)
  return { tick = game.tick }
end

function commands.chat(c)
  world:chat(c.player, c.text)
  return {}
end

function commands.chats(c)
  for i = 1, c.n do world:chat(c.player, "line " .. i) end
  return {}
end

function commands.save()
  saved = fake.save_copy(storage, "", {})
  return {}
end

function commands.load()
  -- Loading an older save: control.lua afresh, the saved storage back, on_load.
  world:run_control()
  _G.storage = fake.save_copy(saved, "", {})
  if world.load_handler then world.load_handler() end
  return {}
end

function commands.new_map(c)
  fake.restore_globals()
  world = W.with_body({ seed = c.seed or 987654321 })
  return { map_id = storage.map_id }
end

for line in stdin:lines() do
  local c = json.decode(line)
  local ok, out = pcall(function()
    local f = c and commands[c["do"]]
    if f == nil then error("unknown command: " .. tostring(line)) end
    return f(c)
  end)
  if ok then
    out.ok = true
  else
    out = { ok = false, error = tostring(out) }
  end
  local logged = world:error_logs()
  if #logged > 0 then out = { ok = false, error = "the mod logged: " .. table.concat(logged, "\n") } end
  stdout:write(json.encode(out), "\n")
  stdout:flush()
end
