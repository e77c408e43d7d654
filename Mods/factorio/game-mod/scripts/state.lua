-- The mod's storage layout and the lookups every module shares (host player, body, names).
-- Modules read the `storage` global at call time, never at load time: the game swaps it in
-- after control.lua runs when a save loads.
local state = {}

state.MOD_NAME = "coop-agent"
state.RING_SIZE = 2048
state.WRITES_KEPT = 512
state.FINISHED_JOBS_KEPT = 64

--- Fills in every storage field that is missing; safe to run on init and on every mod update.
function state.ensure()
  local s = storage
  if s.map_id == nil then
    local seed = 0
    local nauvis = game.surfaces["nauvis"] or game.surfaces[1]
    if nauvis then seed = nauvis.map_gen_settings.seed end
    s.map_id = string.format("%08x-%x", seed % 4294967296, game.tick)
  end
  s.events = s.events or { buf = {}, head = 0, oldest = 1 }
  s.writes = s.writes or { by_id = {}, order = {}, first = 1, last = 0 }
  s.jobs = s.jobs or { next_id = 1, records = {}, running = nil, rt = nil }
  s.idle = s.idle or { mode = "follow" }
  if s.stopped == nil then s.stopped = false end
  s.body_state = s.body_state or { respawn_tick = nil, last_damaged_tick = nil, threat_seen = {} }
  s.attack = s.attack or { active = false, last_tick = nil }
end

--- The mod's version as the game loaded it.
function state.version()
  return script.active_mods[state.MOD_NAME]
end

--- The body's display name (the runtime-global setting).
function state.body_name()
  local setting = settings.global["coop-agent-body-name"]
  local name = setting and setting.value or "Yui"
  if name == "" then name = "Yui" end
  return name
end

--- The host player (named by setting, else the save's first player), or nil when there is none.
function state.host()
  local setting = settings.global["coop-agent-host-player"]
  local wanted = setting and setting.value or ""
  if wanted ~= "" then
    local p = game.get_player(wanted)
    if p and p.valid then return p end
    return nil
  end
  local p = game.get_player(1)
  if p and p.valid then return p end
  return nil
end

--- The host's state word: online, offline, dead or none.
function state.host_state(p)
  if p == nil then return "none" end
  if not p.connected then return "offline" end
  if p.ticks_to_respawn ~= nil then return "dead" end
  return "online"
end

--- The host's physical position and surface (not the remote-view camera), or nil.
function state.host_place(p)
  if p == nil then return nil, nil end
  local pos = p.physical_position or p.position
  local surface = p.physical_surface or p.surface
  return pos, surface
end

--- The body entity when it is alive, else nil.
function state.body()
  local b = storage.body
  if b ~= nil and b.valid then return b end
  return nil
end

--- The body's state word: alive, dead or none.
function state.body_state()
  if state.body() then return "alive" end
  if storage.body_state.respawn_tick ~= nil then return "dead" end
  return "none"
end

return state
