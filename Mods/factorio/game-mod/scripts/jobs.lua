-- The job queue: validated kinds, one job running at a time, timeouts, cancel, and the events
-- job_done / job_failed / queue_idle. Records are plain data in storage; a running job's
-- working state (targets, timers) lives beside them in storage.jobs.rt.
local state = require("scripts.state")
local events = require("scripts.events")
local check = require("scripts.check")
local body = require("scripts.body")
local util = require("scripts.util")

local jobs = {}

jobs.MAX_BATCH = 8
jobs.DEFAULT_TIMEOUT = 18000
jobs.DIRECTIONS = { "north", "east", "south", "west" }
jobs.REASONS = { "timeout", "unreachable", "missing_item", "invalid_target", "body_died", "blocked" }

local function known_item(name, field)
  if prototypes.item[name] == nil then check.bad(field, "is not a known item: " .. name) end
  return name
end

-- Per kind: validate(args, prefix) returns normalized args; start(b, a) returns the working
-- state or fails; step(b, a, rt) returns nil to go on, or "done", result / "failed", reason, message.
local kinds = {}

-- Turns a walk_toward result into a step verdict: nil goes on, else a failure.
local function walk_verdict(r)
  if r == "blocked" then return "failed", "blocked", "the body made no progress toward the target" end
  if r == "unreachable" then return "failed", "unreachable", "the pathfinder found no way there" end
  return nil
end

kinds.walk_to = {
  validate = function(a, p)
    return { pos = check.pos(a.pos, p .. ".pos"), radius = check.num(a.radius, p .. ".radius", 0.5, 32, 1) }
  end,
  start = function() return {} end,
  step = function(b, a)
    local r = body.walk_toward(b, a.pos, a.radius)
    if r == "arrived" then return "done", { position = util.pos(b.position) } end
    return walk_verdict(r)
  end,
}

local function find_near(surface, pos, name)
  local found = surface.find_entities_filtered({ position = pos, radius = 3, name = name })
  local best, best_d
  for _, e in pairs(found) do
    local d = util.dist(e.position, pos)
    if best == nil or d < best_d then best, best_d = e, d end
  end
  return best
end

local function by_unit(n)
  local e = game.get_entity_by_unit_number(n)
  if e and e.valid then return e end
  return nil
end

-- Walks until the body can reach `entity`; returns nil when in reach, else the step's verdict.
local function approach(b, entity)
  if entity.surface ~= b.surface then return "failed", "unreachable", "the target is on another surface" end
  if b.can_reach_entity(entity) then
    b.walking_state = { walking = false, direction = defines.direction.north }
    storage.walk = nil
    return nil
  end
  local failed, reason, message = walk_verdict(body.walk_toward(b, entity.position, 1))
  if failed then return failed, reason, message end
  return "walking"
end

kinds.mine = {
  validate = function(a, p)
    local out = { count = check.int(a.count, p .. ".count", 1, 1000, 1) }
    if a.unit_number ~= nil then
      out.unit_number = check.int(a.unit_number, p .. ".unit_number", 1)
    else
      if a.pos == nil and a.name == nil then check.bad(p .. ".unit_number", "or pos and name is required") end
      out.pos = check.pos(a.pos, p .. ".pos")
      out.name = check.str(a.name, p .. ".name", 200)
      if prototypes.entity[out.name] == nil then check.bad(p .. ".name", "is not a known entity: " .. out.name) end
    end
    return out
  end,
  start = function(b, a)
    local target
    if a.unit_number then
      target = by_unit(a.unit_number)
    else
      target = find_near(b.surface, a.pos, a.name)
    end
    if target == nil then return nil, "invalid_target", "nothing to mine there" end
    if not target.prototype.mineable_properties.minable then
      return nil, "invalid_target", target.name .. " cannot be mined"
    end
    return { target = target, remaining = a.count, mined = {}, done_any = false }
  end,
  step = function(b, a, rt)
    local target = rt.target
    if not target.valid then
      -- A depleted resource or a mined entity: go on with the next one of that name near pos.
      if rt.remaining > 0 and a.pos then target = find_near(b.surface, a.pos, a.name) end
      if target == nil or not target.valid then
        if rt.done_any then return "done", { mined = rt.mined } end
        return "failed", "invalid_target", "the target is gone"
      end
      rt.target = target
    end
    local verdict, reason, message = approach(b, target)
    if verdict == "walking" then
      rt.ready_tick = nil
      return nil
    end
    if verdict then return verdict, reason, message end
    local props = target.prototype.mineable_properties
    if rt.ready_tick == nil then
      local speed = b.prototype.mining_speed or 0.5
      rt.ready_tick = game.tick + math.max(1, math.ceil(props.mining_time / speed * 60))
      return nil
    end
    if game.tick < rt.ready_tick then return nil end
    rt.ready_tick = nil
    -- What the inventory gained: the products, and whatever a mined container or machine held.
    local before = util.contents(b.get_main_inventory())
    if not b.mine_entity(target) then
      return "failed", "blocked", "could not mine " .. target.name .. " (inventory full?)"
    end
    for n, count in pairs(util.contents(b.get_main_inventory())) do
      local gained = count - (before[n] or 0)
      if gained > 0 then rt.mined[n] = (rt.mined[n] or 0) + gained end
    end
    rt.done_any = true
    rt.remaining = rt.remaining - 1
    if rt.remaining <= 0 then return "done", { mined = rt.mined } end
    return nil
  end,
}

kinds.craft = {
  validate = function(a, p)
    local recipe = check.str(a.recipe, p .. ".recipe", 200)
    local proto = prototypes.recipe[recipe]
    if proto == nil then check.bad(p .. ".recipe", "is not a known recipe: " .. recipe) end
    local character = prototypes.entity["character"]
    local by_hand = character and character.crafting_categories or { crafting = true }
    if not by_hand[proto.category] then
      check.bad(p .. ".recipe", "cannot be crafted by hand (" .. proto.category .. "): " .. recipe)
    end
    return { recipe = recipe, count = check.int(a.count, p .. ".count", 1, 1000, 1) }
  end,
  start = function(b, a)
    local r = b.force.recipes[a.recipe]
    if r == nil or not r.enabled then return nil, "invalid_target", a.recipe .. " is not enabled" end
    local can = b.get_craftable_count(a.recipe)
    if can < a.count then
      return nil, "missing_item", "ingredients for " .. can .. " of " .. a.count .. " " .. a.recipe
    end
    local started = b.begin_crafting({ recipe = a.recipe, count = a.count, silent = true })
    if started < a.count then
      body.halt(b)
      return nil, "missing_item", "could start " .. started .. " of " .. a.count .. " " .. a.recipe
    end
    return { crafted = started }
  end,
  step = function(b, _, rt)
    if b.crafting_queue_size == 0 then return "done", { crafted = rt.crafted } end
  end,
}

local PLACE_CLEARANCE = 1.5

-- A point 2.5 tiles from `spot`, on the body's side of it (east when the body stands on it).
local function aside(from, spot)
  local dx, dy = from.x - spot.x, from.y - spot.y
  local len = math.sqrt(dx * dx + dy * dy)
  if len < 0.01 then dx, dy, len = 1, 0, 1 end
  return { x = spot.x + dx / len * 2.5, y = spot.y + dy / len * 2.5 }
end

kinds.place = {
  validate = function(a, p)
    local item = check.str(a.item, p .. ".item", 200)
    known_item(item, p .. ".item")
    if prototypes.item[item].place_result == nil then check.bad(p .. ".item", "cannot be placed: " .. item) end
    return {
      item = item,
      pos = check.pos(a.pos, p .. ".pos"),
      direction = check.enum(a.direction, p .. ".direction", jobs.DIRECTIONS, "north"),
    }
  end,
  start = function(_, a)
    return { entity = prototypes.item[a.item].place_result.name }
  end,
  step = function(b, a, rt)
    if b.get_item_count(a.item) < 1 then return "failed", "missing_item", "the body has no " .. a.item end
    local reach = math.max(1, b.build_distance - 1)
    if util.dist(b.position, a.pos) > reach then
      return walk_verdict(body.walk_toward(b, a.pos, reach))
    end
    -- The body itself would block the spot: step aside first.
    if util.dist(b.position, a.pos) < PLACE_CLEARANCE then
      local away = aside(b.position, a.pos)
      if body.walk_toward(b, away, 0.3) == "blocked" then
        return "failed", "blocked", "the body cannot step off the spot"
      end
      return nil
    end
    b.walking_state = { walking = false, direction = defines.direction.north }
    storage.walk = nil
    local spec = {
      name = rt.entity,
      position = a.pos,
      direction = defines.direction[a.direction],
      force = b.force,
    }
    if not b.surface.can_place_entity(spec) then return "failed", "blocked", "cannot place " .. rt.entity .. " there" end
    spec.raise_built = true
    local e = b.surface.create_entity(spec)
    if e == nil then return "failed", "blocked", "cannot place " .. rt.entity .. " there" end
    b.remove_item({ name = a.item, count = 1 })
    return "done", { unit_number = e.unit_number }
  end,
}

local function transfer_validate(a, p)
  return {
    unit_number = check.int(a.unit_number, p .. ".unit_number", 1),
    item = known_item(check.str(a.item, p .. ".item", 200), p .. ".item"),
    count = check.int(a.count, p .. ".count", 1, 10000),
  }
end

local function transfer_start(_, a)
  local target = by_unit(a.unit_number)
  if target == nil then return nil, "invalid_target", "no entity " .. a.unit_number end
  return { target = target }
end

kinds.insert = {
  validate = transfer_validate,
  start = transfer_start,
  step = function(b, a, rt)
    if not rt.target.valid then return "failed", "invalid_target", "the target is gone" end
    local verdict, reason, message = approach(b, rt.target)
    if verdict == "walking" then return nil end
    if verdict then return verdict, reason, message end
    local have = b.get_item_count(a.item)
    if have < 1 then return "failed", "missing_item", "the body has no " .. a.item end
    local inserted = rt.target.insert({ name = a.item, count = math.min(a.count, have) })
    if inserted < 1 then return "failed", "blocked", rt.target.name .. " takes no " .. a.item end
    b.remove_item({ name = a.item, count = inserted })
    return "done", { inserted = inserted }
  end,
}

kinds.take = {
  validate = transfer_validate,
  start = transfer_start,
  step = function(b, a, rt)
    local target = rt.target
    if not target.valid then return "failed", "invalid_target", "the target is gone" end
    local verdict, reason, message = approach(b, target)
    if verdict == "walking" then return nil end
    if verdict then return verdict, reason, message end
    local avail = target.get_item_count(a.item)
    if avail < 1 then return "failed", "missing_item", target.name .. " holds no " .. a.item end
    local removed = target.remove_item({ name = a.item, count = math.min(a.count, avail) })
    local got = removed > 0 and b.insert({ name = a.item, count = removed }) or 0
    if got < removed then target.insert({ name = a.item, count = removed - got }) end
    if got < 1 then return "failed", "blocked", "the body's inventory is full" end
    return "done", { taken = got }
  end,
}

jobs.KINDS = { "walk_to", "mine", "craft", "place", "insert", "take" }

--- Validates one job spec at `prefix` (e.g. args.jobs[0]); returns kind, normalized args, timeout.
function jobs.validate(j, prefix)
  if not util.is_object(j) then check.bad(prefix, "must be an object {kind, args, timeout_ticks?}") end
  local kind = check.enum(j.kind, prefix .. ".kind", jobs.KINDS)
  local args = check.object(j.args, prefix .. ".args")
  local timeout = check.int(j.timeout_ticks, prefix .. ".timeout_ticks", 60, 216000, jobs.DEFAULT_TIMEOUT)
  return kind, kinds[kind].validate(args, prefix .. ".args"), timeout
end

--- Validates a whole batch (args.jobs) before anything is queued; returns the specs.
function jobs.validate_batch(list)
  check.array(list, "args.jobs")
  if #list < 1 or #list > jobs.MAX_BATCH then
    check.bad("args.jobs", "must hold 1 to " .. jobs.MAX_BATCH .. " jobs")
  end
  local specs = {}
  for i, j in ipairs(list) do
    local kind, _, timeout = jobs.validate(j, "args.jobs[" .. (i - 1) .. "]")
    specs[i] = { kind = kind, args = util.copy(check.object(j.args, "")), timeout_ticks = timeout }
  end
  return specs
end

--- Queues validated specs in order and lifts the stop latch; returns the new ids.
function jobs.enqueue(specs)
  local q = storage.jobs
  local ids = {}
  for _, spec in ipairs(specs) do
    local id = q.next_id
    q.next_id = id + 1
    q.records[#q.records + 1] = {
      id = id,
      kind = spec.kind,
      args = spec.args,
      timeout_ticks = spec.timeout_ticks,
      state = "queued",
      enqueued_tick = game.tick,
    }
    ids[#ids + 1] = id
  end
  storage.stopped = false
  return ids
end

local function find(id)
  for _, r in ipairs(storage.jobs.records) do
    if r.id == id then return r end
  end
  return nil
end

local function pending_count()
  local n = 0
  for _, r in ipairs(storage.jobs.records) do
    if r.state == "queued" or r.state == "running" then n = n + 1 end
  end
  return n
end

-- Keeps queued and running records plus the newest finished ones.
local function prune()
  local records = storage.jobs.records
  local finished = 0
  for _, r in ipairs(records) do
    if r.state ~= "queued" and r.state ~= "running" then finished = finished + 1 end
  end
  local i = 1
  while finished > state.FINISHED_JOBS_KEPT and i <= #records do
    local r = records[i]
    if r.state ~= "queued" and r.state ~= "running" then
      table.remove(records, i)
      finished = finished - 1
    else
      i = i + 1
    end
  end
end

local function finish(rec, outcome, a, b)
  local q = storage.jobs
  if q.running == rec.id then storage.walk = nil end
  rec.state = outcome
  rec.ended_tick = game.tick
  if q.running == rec.id then
    q.running = nil
    q.rt = nil
  end
  if outcome == "done" then
    rec.result = a
    events.push("job_done", { job_id = rec.id, job_kind = rec.kind, result = a })
  elseif outcome == "failed" then
    rec.reason, rec.message = a, b
    events.push("job_failed", { job_id = rec.id, job_kind = rec.kind, reason = a, message = b })
  end
  if outcome ~= "cancelled" and pending_count() == 0 then
    events.push("queue_idle", { last_job_id = rec.id })
  end
  prune()
end

--- Cancels one queued or running job (id) or every one ("all") without any event; returns ids.
function jobs.cancel(which)
  local cancelled = {}
  for _, r in ipairs(storage.jobs.records) do
    if (which == "all" or r.id == which) and (r.state == "queued" or r.state == "running") then
      if r.state == "running" then body.halt() end
      finish(r, "cancelled")
      cancelled[#cancelled + 1] = r.id
    end
  end
  return cancelled
end

--- True when job `id` is queued or running.
function jobs.is_pending(id)
  local r = find(id)
  return r ~= nil and (r.state == "queued" or r.state == "running")
end

--- Cancels the running job without an event (the stop op).
function jobs.cancel_running()
  local id = storage.jobs.running
  if id then
    local r = find(id)
    if r then finish(r, "cancelled") end
  end
end

--- Fails the running job with body_died (the body just died).
function jobs.on_body_died()
  local id = storage.jobs.running
  if id == nil then return end
  local r = find(id)
  if r then finish(r, "failed", "body_died", "the body died") end
end

--- One tick of the queue; returns true while a job occupies the body.
function jobs.tick(b)
  local q = storage.jobs
  local rec = q.running and find(q.running)
  if rec == nil then
    q.running, q.rt = nil, nil
    for _, r in ipairs(q.records) do
      if r.state == "queued" then
        rec = r
        break
      end
    end
    if rec == nil then return false end
    rec.state = "running"
    rec.started_tick = game.tick
    q.running = rec.id
    storage.walk = nil -- an idle walk in progress is not this job's
    -- Re-validated at start: a mod update may have removed an item or recipe since it was queued.
    local spec = { kind = rec.kind, args = rec.args, timeout_ticks = rec.timeout_ticks }
    local ok, err, a = pcall(jobs.validate, spec, "job")
    if not ok then
      finish(rec, "failed", "invalid_target", type(err) == "table" and err.message or "invalid job")
      return true
    end
    local started, rt, reason, message = pcall(kinds[rec.kind].start, b, a)
    if not started then
      -- A Lua error must not leave a job running forever: it fails, and the log says why.
      log("coop-agent: error starting job " .. rec.id .. ": " .. tostring(rt))
      finish(rec, "failed", "invalid_target", "the game mod failed on this job: " .. tostring(rt))
      return true
    end
    if rt == nil then
      finish(rec, "failed", reason, message)
      return true
    end
    rt.args = a
    q.rt = rt
  end
  if game.tick - rec.started_tick >= rec.timeout_ticks then
    body.halt(b)
    finish(rec, "failed", "timeout", "the job ran " .. rec.timeout_ticks .. " ticks")
    return true
  end
  local ok, verdict, x, y = pcall(kinds[rec.kind].step, b, q.rt.args, q.rt)
  if not ok then
    log("coop-agent: error in job " .. rec.id .. ": " .. tostring(verdict))
    body.halt(b)
    finish(rec, "failed", "invalid_target", "the game mod failed on this job: " .. tostring(verdict))
    return true
  end
  if verdict == "done" then
    finish(rec, "done", x)
  elseif verdict == "failed" then
    body.halt(b)
    finish(rec, "failed", x, y)
  end
  return true
end

--- Queue summary: queued plus running count, the running id, the queued ids.
function jobs.summary()
  local q = storage.jobs
  local length, queued = 0, {}
  for _, r in ipairs(q.records) do
    if r.state == "queued" then
      queued[#queued + 1] = r.id
      length = length + 1
    elseif r.state == "running" then
      length = length + 1
    end
  end
  return { length = length, running = q.running, queued = queued }
end

--- Every job record, oldest first, as plain copies.
function jobs.list()
  local out = {}
  for i, r in ipairs(storage.jobs.records) do out[i] = util.copy(r) end
  return out
end

return jobs
