-- Game events turned into ring events: chat, deaths, rockets, research, players coming and
-- going, attacks on the factory, threats to and damage on the body, the periodic summary.
local state = require("scripts.state")
local events = require("scripts.events")
local body = require("scripts.body")
local jobs = require("scripts.jobs")
local util = require("scripts.util")

local watch = {}

watch.ATTACK_QUIET_TICKS = 3600 -- 60 s without enemy damage ends an attack
watch.THREAT_RADIUS = 24
watch.THREAT_REPEAT_TICKS = 600 -- once per enemy per 10 s
watch.THREAT_MAX_PER_SCAN = 8
watch.DAMAGE_REPEAT_TICKS = 60 -- body_damaged at most once per second
watch.SUMMARY_TICKS = 18000 -- every 5 minutes
watch.SCAN_TICKS = 60
local ENEMY_TYPES = { "unit", "unit-spawner", "turret" }

local function player_name(index)
  local p = index and game.get_player(index)
  return p and p.name or nil
end

local function name_of(entity)
  if entity ~= nil and entity.valid then return entity.name end
  return nil
end

--- A player's chat line (the server console and the body never fire this).
function watch.on_console_chat(e)
  if e.player_index == nil then return end
  events.push("chat", { player = player_name(e.player_index), text = e.message })
end

--- A player died: player_died with where and by what.
function watch.on_player_died(e)
  local p = game.get_player(e.player_index)
  local pos = p and (p.physical_position or p.position)
  events.push("player_died", { player = p and p.name or nil, position = util.pos(pos), cause = name_of(e.cause) })
end

--- Characters only (by event filter): the body's death ends its running job.
function watch.on_entity_died(e)
  if body.on_died(e.entity, e.cause) then jobs.on_body_died() end
end

--- A rocket left a silo: rocket_launched.
function watch.on_rocket_launched(e)
  local silo = e.rocket_silo
  local valid = silo ~= nil and silo.valid
  events.push("rocket_launched", {
    position = valid and util.pos(silo.position) or nil,
    silo = valid and silo.unit_number or nil,
  })
end

--- A research finished: research_finished with its level.
function watch.on_research_finished(e)
  events.push("research_finished", { research = e.research.name, level = e.research.level })
end

--- A player joined the game.
function watch.on_player_joined_game(e)
  events.push("player_joined", { player = player_name(e.player_index) })
end

--- A player left the game.
function watch.on_player_left_game(e)
  events.push("player_left", { player = player_name(e.player_index) })
end

local function hostile(victim_force, attacker_force)
  return attacker_force ~= nil and victim_force ~= nil and victim_force.is_enemy(attacker_force)
end

--- Damage on the body (body_damaged) and on the host force's entities (attack_started).
function watch.on_entity_damaged(e)
  local victim = e.entity
  if not victim.valid or not hostile(victim.force, e.force) then return end
  if storage.body_unit ~= nil and victim.unit_number == storage.body_unit then
    local bs = storage.body_state
    if bs.last_damaged_tick == nil or game.tick - bs.last_damaged_tick >= watch.DAMAGE_REPEAT_TICKS then
      bs.last_damaged_tick = game.tick
      events.push("body_damaged", {
        damage = util.round(e.final_damage_amount),
        health = util.round(e.final_health),
        cause = name_of(e.cause),
      })
    end
  end
  local host = state.host()
  local force = host and host.force or game.forces["player"]
  if victim.force ~= force then return end
  local attack = storage.attack
  if not attack.active then
    attack.active = true
    events.push("attack_started", { position = util.pos(victim.position), target = victim.name })
  end
  attack.last_tick = game.tick
  attack.position = util.pos(victim.position)
end

local function scan_threats()
  local b = state.body()
  if b == nil then return end
  local seen = storage.body_state.threat_seen
  for key, tick in pairs(seen) do
    if game.tick - tick >= watch.THREAT_REPEAT_TICKS then seen[key] = nil end
  end
  local near = {}
  local found = b.surface.find_entities_filtered({ position = b.position, radius = watch.THREAT_RADIUS, type = ENEMY_TYPES })
  for _, e in pairs(found) do
    if b.force.is_enemy(e.force) then near[#near + 1] = { e = e, d = util.dist(e.position, b.position) } end
  end
  table.sort(near, function(x, y) return x.d < y.d end)
  local fired = 0
  for _, n in ipairs(near) do
    if fired >= watch.THREAT_MAX_PER_SCAN then break end
    local e = n.e
    local key = e.unit_number and tostring(e.unit_number) or (e.name .. "@" .. e.position.x .. "," .. e.position.y)
    if seen[key] == nil then
      seen[key] = game.tick
      fired = fired + 1
      events.push("body_threat", { enemy = e.name, distance = util.round(n.d), position = util.pos(e.position) })
    end
  end
end

--- Once a second: end a quiet attack, look for enemies near the body.
function watch.on_scan()
  local attack = storage.attack
  if attack.active and game.tick - attack.last_tick >= watch.ATTACK_QUIET_TICKS then
    attack.active = false
    events.push("attack_ended", { position = attack.position })
  end
  scan_threats()
end

--- Every 5 minutes: a short summary event.
function watch.on_summary()
  local b = state.body()
  local host = state.host()
  local hpos = state.host_place(host)
  local force = host and host.force or game.forces["player"]
  local research = force and force.current_research
  events.push("snapshot_summary", {
    summary = {
      body = { state = state.body_state(), position = b and util.pos(b.position) or nil },
      host = { name = host and host.name or nil, state = state.host_state(host), position = util.pos(hpos) },
      queue_length = jobs.summary().length,
      research = research and research.name or nil,
    },
  })
end

--- A runtime setting changed: the body's label follows its name.
function watch.on_runtime_mod_setting_changed(e)
  if e.setting == "coop-agent-body-name" then body.relabel() end
end

--- The pathfinder's answer to one of the body's walks.
function watch.on_script_path_request_finished(e)
  body.on_path(e)
end

--- Every tick: keep the body in the game, run the queue, else the idle mode.
function watch.on_tick()
  body.ensure()
  local b = state.body()
  if b == nil or storage.stopped then return end
  if not jobs.tick(b) then body.idle_tick(b) end
end

return watch
