-- coop-agent: gives an AI agent a body in the game, driven over RCON by /coop-rpc <json>.
-- The protocol is docs/coop-rpc.md in the YUI repository.
local state = require("scripts.state")
local rpc = require("scripts.rpc")
local watch = require("scripts.watch")
local writes = require("scripts.writes")
local body = require("scripts.body")

-- An error in a handler would end the game for everyone; log it and carry on instead.
local function guarded(name, f)
  return function(e)
    local ok, err = pcall(f, e)
    if not ok then log("coop-agent: error in " .. name .. ": " .. tostring(err)) end
  end
end

script.on_init(function() state.ensure() end)
script.on_configuration_changed(function() state.ensure() end)

local ev = defines.events
script.on_event(ev.on_tick, guarded("on_tick", watch.on_tick))
script.on_event(ev.on_console_chat, guarded("on_console_chat", watch.on_console_chat))
script.on_event(ev.on_player_died, guarded("on_player_died", watch.on_player_died))
script.on_event(ev.on_entity_died, guarded("on_entity_died", watch.on_entity_died), {
  { filter = "type", type = "character" },
})
script.on_event(ev.on_rocket_launched, guarded("on_rocket_launched", watch.on_rocket_launched))
script.on_event(ev.on_research_finished, guarded("on_research_finished", watch.on_research_finished))
script.on_event(ev.on_player_joined_game, guarded("on_player_joined_game", watch.on_player_joined_game))
script.on_event(ev.on_script_path_request_finished,
  guarded("on_script_path_request_finished", watch.on_script_path_request_finished))
script.on_event(ev.on_runtime_mod_setting_changed,
  guarded("on_runtime_mod_setting_changed", watch.on_runtime_mod_setting_changed))
script.on_event(ev.on_player_left_game, guarded("on_player_left_game", watch.on_player_left_game))
-- Enemy-on-enemy and enemy-being-shot damage is by far the most frequent; filter it out in
-- the engine so the handler only sees damage that can matter.
script.on_event(ev.on_entity_damaged, guarded("on_entity_damaged", watch.on_entity_damaged), {
  { filter = "type", type = "unit", invert = true },
  { filter = "type", type = "unit-spawner", invert = true, mode = "and" },
  { filter = "type", type = "turret", invert = true, mode = "and" },
})
script.on_nth_tick(watch.SCAN_TICKS, guarded("scan", watch.on_scan))
script.on_nth_tick(watch.SUMMARY_TICKS, guarded("summary", watch.on_summary))

commands.add_command("coop-rpc", "Used by the YUI factorio Mod over RCON: /coop-rpc <json>", function(cmd)
  if cmd.player_index ~= nil then
    -- Only the RCON console speaks this protocol; a player typing it gets a pointer, not a reply.
    local p = game.get_player(cmd.player_index)
    if p then p.print("/coop-rpc is the YUI bridge's RCON command; try /coop-stop, /coop-follow or /coop-stay") end
    return
  end
  rcon.print(rpc.answer(cmd.parameter))
end)

local function player_command(name, help, f)
  commands.add_command(name, help, guarded(name, function(cmd)
    local p = cmd.player_index and game.get_player(cmd.player_index)
    if p == nil then return end
    f(p, cmd.parameter)
  end))
end

player_command("coop-stop", "Stop the agent's body and hold it until the agent gives it work again.", function(p)
  writes.do_stop(p.name)
  p.print("[" .. state.body_name() .. "] stopped")
end)

player_command("coop-follow", "The agent's body follows the host player.", function(p)
  body.set_idle("follow", nil)
  p.print("[" .. state.body_name() .. "] following")
end)

player_command("coop-stay", "The agent's body stays where you stand.", function(p)
  local pos = p.physical_position or p.position
  body.set_idle("stay", { x = pos.x, y = pos.y })
  p.print("[" .. state.body_name() .. "] staying here")
end)
