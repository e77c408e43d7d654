-- The body: a character entity the mod owns, named for the agent. Spawning and respawning,
-- walking toward a point, the idle modes (follow the host, stay at a position) and the stop latch.
local state = require("scripts.state")
local events = require("scripts.events")
local util = require("scripts.util")

local body = {}

body.RESPAWN_TICKS = 600
body.FOLLOW_START = 6 -- start walking after the host when farther than this (tiles)
body.FOLLOW_STOP = 3 -- and stop once this close
body.STAY_RADIUS = 0.5
body.BLOCKED_TICKS = 180 -- no progress for 3 s while walking means blocked
body.DIRECT_RANGE = 4 -- closer than this the body walks straight, farther it asks the pathfinder
body.RETARGET = 3 -- a target that moved less than this keeps the current path
body.WAYPOINT_REACHED = 0.6
body.PATH_WAIT_TICKS = 600
body.IDLE_RETRY_TICKS = 300 -- after a failed idle walk, wait this long before trying again
body.LABEL_COLOR = { r = 0.55, g = 0.8, b = 1 }

local DIRS8 = { "north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest" }

--- The defines.direction value pointing from `from` toward `to` (8-way; y grows southward).
function body.direction_to(from, to)
  local angle = math.atan2(to.x - from.x, -(to.y - from.y))
  local i = math.floor(angle / (math.pi / 4) + 0.5) % 8
  return defines.direction[DIRS8[i + 1]]
end

local function spawn_at(surface, near, force)
  local pos = surface.find_non_colliding_position("character", near, 16, 0.5)
  if pos == nil then return nil end
  local b = surface.create_entity({ name = "character", position = pos, force = force })
  if b == nil then return nil end
  storage.body = b
  storage.body_unit = b.unit_number
  storage.body_label = rendering.draw_text({
    text = state.body_name(),
    surface = surface,
    target = { entity = b, offset = { 0, -2.6 } },
    color = body.LABEL_COLOR,
    scale = 1.2,
    alignment = "center",
  })
  return b
end

--- Renames the body's label after the body-name setting changed.
function body.relabel()
  local label = storage.body_label
  if label ~= nil and label.valid then label.text = state.body_name() end
end

--- Where a (re)spawn goes: next to the host, else where the body last stood, else the force spawn.
local function spawn_place()
  local host = state.host()
  local pos, surface = state.host_place(host)
  if host and host.connected and surface then return surface, pos, host.force end
  local last = storage.body_state.last_position
  local s = game.surfaces[storage.body_state.last_surface or "nauvis"] or game.surfaces[1]
  local force = game.forces["player"]
  if s == nil or force == nil then return nil end
  return s, last or force.get_spawn_position(s), force
end

--- Spawns the body when it has none (first time: when a host is online; after death: once the
--- respawn delay passed, firing body_respawned). Cheap when the body exists.
function body.ensure()
  if state.body() then return end
  local bs = storage.body_state
  if bs.respawn_tick ~= nil then
    if game.tick < bs.respawn_tick then return end
    local surface, pos, force = spawn_place()
    if surface == nil then return end
    local b = spawn_at(surface, pos, force)
    if b == nil then return end
    bs.respawn_tick = nil
    events.push("body_respawned", { position = util.pos(b.position) })
    return
  end
  local host = state.host()
  if host == nil or not host.connected then return end
  local pos, surface = state.host_place(host)
  if surface == nil then return end
  spawn_at(surface, pos, host.force)
end

--- Records the body's death: schedules the respawn and fires body_died. Returns true when
--- `entity` was the body.
function body.on_died(entity, cause)
  if storage.body_unit == nil or entity.unit_number ~= storage.body_unit then return false end
  local bs = storage.body_state
  bs.respawn_tick = game.tick + body.RESPAWN_TICKS
  bs.last_position = util.pos(entity.position)
  bs.last_surface = entity.surface.name
  storage.body = nil
  storage.walk = nil
  events.push("body_died", { position = util.pos(entity.position), cause = cause and cause.valid and cause.name or nil })
  return true
end

--- Stops walking, mining and hand-crafting at once (the running job, if any, is the caller's).
function body.halt(b)
  b = b or state.body()
  storage.walk = nil
  if b == nil then return end
  b.walking_state = { walking = false, direction = defines.direction.north }
  b.mining_state = { mining = false }
  local queue = b.crafting_queue
  if queue then
    for i = #queue, 1, -1 do
      b.cancel_crafting({ index = queue[i].index, count = queue[i].count })
    end
  end
end

-- Asks the game's pathfinder for a way from the body to `target`; the answer comes later as
-- on_script_path_request_finished (body.on_path).
local function request_path(b, w)
  local proto = b.prototype
  w.path_id = b.surface.request_path({
    bounding_box = { { -0.2, -0.2 }, { 0.2, 0.2 } },
    collision_mask = proto.collision_mask,
    start = b.position,
    goal = w.target,
    force = b.force,
    radius = w.radius,
    entity_to_ignore = b,
    pathfind_flags = { cache = false },
  })
  w.waiting_since = game.tick
  w.path, w.i = nil, nil
end

--- Walks one tick toward `target`; returns "arrived" within `radius`, "walking", "unreachable"
--- when the pathfinder finds no way, or "blocked" after BLOCKED_TICKS without progress.
--- Farther than DIRECT_RANGE the body follows the game's pathfinder; walking state must be
--- renewed every tick for a character no player controls.
function body.walk_toward(b, target, radius)
  local here = b.position
  if util.dist(here, target) <= radius then
    b.walking_state = { walking = false, direction = defines.direction.north }
    storage.walk = nil
    return "arrived"
  end
  local w = storage.walk
  -- A moving target (the host) keeps the walk while it stays close to where the path leads.
  local same = w ~= nil and (util.dist(w.target, target) <= body.RETARGET or w.path_id ~= nil or
    (w.path ~= nil and w.i <= #w.path))
  if not same then
    w = { target = { x = target.x, y = target.y }, radius = radius, anchor = util.pos(here), anchor_tick = game.tick }
    storage.walk = w
    if util.dist(here, target) > body.DIRECT_RANGE then request_path(b, w) end
  else
    w.target = { x = target.x, y = target.y }
  end
  if w.no_path then
    b.walking_state = { walking = false, direction = defines.direction.north }
    storage.walk = nil
    return "unreachable"
  end
  if w.path_id ~= nil then
    -- Waiting for the pathfinder; ask again if the answer never came (e.g. lost in a load).
    if game.tick - w.waiting_since > body.PATH_WAIT_TICKS then request_path(b, w) end
    w.anchor, w.anchor_tick = util.pos(here), game.tick
    b.walking_state = { walking = false, direction = defines.direction.north }
    return "walking"
  end
  local goal = w.target
  if w.path then
    while w.i <= #w.path and util.dist(here, w.path[w.i]) < body.WAYPOINT_REACHED do w.i = w.i + 1 end
    if w.i <= #w.path then goal = w.path[w.i] end
  end
  if util.dist(here, w.anchor) > 0.5 then
    w.anchor = util.pos(here)
    w.anchor_tick = game.tick
  elseif game.tick - w.anchor_tick > body.BLOCKED_TICKS then
    b.walking_state = { walking = false, direction = defines.direction.north }
    storage.walk = nil
    return "blocked"
  end
  b.walking_state = { walking = true, direction = body.direction_to(here, goal) }
  return "walking"
end

--- Takes the pathfinder's answer for the body's current walk (other answers are ignored).
function body.on_path(e)
  local w = storage.walk
  if w == nil or w.path_id ~= e.id then return end
  w.path_id = nil
  if e.path then
    w.path = {}
    for i, wp in ipairs(e.path) do w.path[i] = util.pos(wp.position) end
    w.i = 1
  elseif e.try_again_later then
    local b = state.body()
    if b then request_path(b, w) end
  else
    w.no_path = true
  end
end

-- An idle walk that fails rests a while before the next try, so an unreachable host does
-- not turn into a path request every tick.
local function idle_walk(b, target, radius)
  local bs = storage.body_state
  if bs.idle_retry_tick ~= nil and game.tick < bs.idle_retry_tick then return end
  local r = body.walk_toward(b, target, radius)
  if r == "blocked" or r == "unreachable" then bs.idle_retry_tick = game.tick + body.IDLE_RETRY_TICKS end
end

--- One tick of the idle mode: follow the host, or stand at the stay position.
function body.idle_tick(b)
  local idle = storage.idle
  if idle.mode == "follow" then
    local host = state.host()
    if host == nil or not host.connected or host.ticks_to_respawn ~= nil then return end
    local pos, surface = state.host_place(host)
    if surface ~= b.surface then
      -- Another surface cannot be walked to: the companion hops over to its host.
      local p = surface.find_non_colliding_position("character", pos, 16, 0.5)
      if p then b.teleport(p, surface) end
      return
    end
    local d = util.dist(b.position, pos)
    if storage.walk ~= nil or d > body.FOLLOW_START then idle_walk(b, pos, body.FOLLOW_STOP) end
  elseif idle.mode == "stay" and idle.pos ~= nil then
    idle_walk(b, idle.pos, body.STAY_RADIUS)
  end
end

--- Sets the idle mode and lifts the stop latch; fires idle_changed when mode or pos changed.
function body.set_idle(mode, pos)
  local old = storage.idle
  storage.stopped = false
  storage.walk = nil
  storage.body_state.idle_retry_tick = nil
  local changed = old.mode ~= mode or not util.deep_equal(old.pos, pos)
  storage.idle = { mode = mode, pos = pos }
  if changed then events.push("idle_changed", { mode = mode, pos = pos and util.copy(pos) or nil }) end
end

--- The idle mode as the protocol shows it.
function body.idle_view()
  local idle = storage.idle
  return { mode = idle.mode, pos = idle.pos and util.copy(idle.pos) or nil }
end

return body
