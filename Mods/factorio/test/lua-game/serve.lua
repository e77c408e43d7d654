-- Runs the real coop-agent game mod (Mods/factorio/game-mod) under lua5.2 on the game mod's own fake
-- Factorio API, driven one JSON line at a time on stdin; answers one JSON line per command on stdout.
-- The Node side (lua-game.ts) puts a real RCON server in front of it, so the Mod's tests can check the
-- contract against the game mod itself, not only against the TypeScript stand-in.
--   {"cmd":"rpc","text":"<json>"}        -> {"printed":["<reply>", ...]}  (what rcon.print wrote)
--   {"cmd":"chat","player":"alice","text":"hi"}, {"cmd":"tick","n":60}, {"cmd":"save_and_load"},
--   {"cmd":"new_map","seed":7}           -> {}
--   {"cmd":"save"} keeps a copy of storage; {"cmd":"load"} loads that older save (a rollback)
local here = arg[0]:match("^(.*)/test/lua%-game/serve%.lua$") or "."
local mod = here .. "/game-mod"
package.path = mod .. "/?.lua;" .. mod .. "/tests/?.lua;" .. mod .. "/tests/fake/?.lua;" .. package.path

-- The fake hides io from the mod; keep our own handles first.
local stdin, stdout = io.stdin, io.stdout
local json = require("json")
local fake = require("factorio")
fake.configure(mod)
local worlds = require("world")

local function new_world(seed)
  local w = worlds.standard({ seed = seed })
  w:tick(1)
  return w
end

local w = new_world(1)
local saved -- an older save of the current map, for rollbacks
stdout:write(json.encode({ ready = true }), "\n")
stdout:flush()

for line in stdin:lines() do
  local out = {}
  local ok, err = pcall(function()
    local msg = json.decode(line)
    if msg.cmd == "rpc" then
      local before = #w.rcon_out
      w.commands["coop-rpc"].f({ name = "coop-rpc", tick = w.game_data.tick, parameter = msg.text })
      local printed = {}
      for i = before + 1, #w.rcon_out do printed[#printed + 1] = w.rcon_out[i] end
      out.printed = printed
    elseif msg.cmd == "chat" then
      w:chat(msg.player, msg.text)
    elseif msg.cmd == "tick" then
      w:tick(msg.n or 1)
    elseif msg.cmd == "save_and_load" then
      w:save_and_load()
    elseif msg.cmd == "save" then
      saved = fake.save_copy(_G.storage, "", {})
    elseif msg.cmd == "load" then
      -- Like save_and_load, but with the older copy: control.lua afresh, the old storage, on_load.
      w:run_control()
      _G.storage = fake.save_copy(saved, "", {})
      if w.load_handler then w.load_handler() end
    elseif msg.cmd == "new_map" then
      w = new_world(msg.seed)
    else
      error("unknown cmd " .. tostring(msg.cmd))
    end
  end)
  if not ok then out.error = tostring(err) end
  stdout:write(json.encode(out), "\n")
  stdout:flush()
end
