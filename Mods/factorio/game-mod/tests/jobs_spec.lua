-- The job queue: validation, each kind run to done and to failure, timeouts, cancel, the stop
-- latch, queue_idle, and the records the jobs op returns.
local P = require("protocol")
local E = require("expect")
local W = require("world")

local function enqueue(w, jobs)
  return w:rpc({ op = "jobs_enqueue", id = W.id(), args = { jobs = jobs } })
end

local function all_events(w)
  return E.ok(w:rpc({ op = "events_since", args = { seq = 0 } })).events
end

local function events_of(w, kind)
  local out = {}
  for _, e in ipairs(all_events(w)) do
    if e.kind == kind then out[#out + 1] = e end
  end
  return out
end

local function record(w, id)
  for _, r in ipairs(E.ok(w:rpc({ op = "jobs" })).jobs) do
    if r.id == id then return r end
  end
end

local function run_until_ended(w, id, max)
  w:run_until(function()
    local r = record(w, id)
    return r.state ~= P.job_state.queued and r.state ~= P.job_state.running
  end, max or 20000)
  return record(w, id)
end

test("jobs_enqueue queues 1 to 8 jobs in order and returns their ids from 1", function()
  local w = W.with_body()
  local ids = E.ok(enqueue(w, {
    { kind = "walk_to", args = { pos = { x = 5, y = 0 } } },
    { kind = "craft", args = { recipe = "iron-gear-wheel" } },
  })).ids
  E.eq(ids, { 1, 2 }, "ids")
  local more = E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = 0, y = 0 } } } })).ids
  E.eq(more, { 3 }, "ids keep counting")
  local list = E.ok(w:rpc({ op = "jobs" })).jobs
  E.eq(#list, 3, "three records")
  E.eq(list[1].kind, "walk_to", "oldest first")
  E.eq(list[2].args, { recipe = "iron-gear-wheel" }, "args as sent")
  E.eq(list[2].timeout_ticks, P.timeout_default, "default timeout")
  E.eq(list[2].state, P.job_state.queued, "queued")
end)

test("a batch outside 1 to 8 or not an array answers bad_request on args.jobs", function()
  local w = W.with_body()
  local nine = {}
  for i = 1, 9 do nine[i] = { kind = "walk_to", args = { pos = { x = i, y = 0 } } } end
  E.err(enqueue(w, nine), P.code.bad_request, { field = "args.jobs" })
  E.err(w:rpc({ op = "jobs_enqueue", id = W.id(), args = { jobs = {} } }), P.code.bad_request, { field = "args.jobs" })
  E.err(w:rpc({ op = "jobs_enqueue", id = W.id(), args = {} }), P.code.bad_request, { field = "args.jobs" })
  E.err(w:rpc({ op = "jobs_enqueue", id = W.id(), args = { jobs = { kind = "walk_to" } } }), P.code.bad_request,
    { field = "args.jobs" })
end)

test("one bad job rejects the whole batch, naming its field with a 0-based index", function()
  local w = W.with_body()
  local cases = {
    { { kind = "dance" }, "args.jobs[0].kind" },
    { "walk", "args.jobs[0]" },
    { { kind = "walk_to", args = {} }, "args.jobs[0].args.pos" },
    { { kind = "walk_to", args = { pos = { x = "1", y = 2 } } }, "args.jobs[0].args.pos.x" },
    { { kind = "walk_to", args = { pos = { x = 1 } } }, "args.jobs[0].args.pos.y" },
    { { kind = "walk_to", args = { pos = { x = 1e300, y = 0 } } }, "args.jobs[0].args.pos.x" },
    { { kind = "walk_to", args = { pos = { x = 0, y = -1000001 } } }, "args.jobs[0].args.pos.y" },
    { { kind = "walk_to", args = { pos = { x = 1, y = 1 }, radius = 0.1 } }, "args.jobs[0].args.radius" },
    { { kind = "walk_to", args = { pos = { x = 1, y = 1 }, radius = 33 } }, "args.jobs[0].args.radius" },
    { { kind = "walk_to", args = { pos = { x = 1, y = 1 } }, timeout_ticks = 59 }, "args.jobs[0].timeout_ticks" },
    { { kind = "walk_to", args = { pos = { x = 1, y = 1 } }, timeout_ticks = 216001 }, "args.jobs[0].timeout_ticks" },
    { { kind = "walk_to", args = 5 }, "args.jobs[0].args" },
    { { kind = "mine", args = {} }, "args.jobs[0].args.unit_number" },
    { { kind = "mine", args = { unit_number = 0 } }, "args.jobs[0].args.unit_number" },
    { { kind = "mine", args = { pos = { x = 1, y = 1 } } }, "args.jobs[0].args.name" },
    { { kind = "mine", args = { pos = { x = 1, y = 1 }, name = "unobtainium-ore" } }, "args.jobs[0].args.name" },
    { { kind = "mine", args = { unit_number = 5, count = 1001 } }, "args.jobs[0].args.count" },
    { { kind = "craft", args = {} }, "args.jobs[0].args.recipe" },
    { { kind = "craft", args = { recipe = "warp-drive" } }, "args.jobs[0].args.recipe" },
    { { kind = "craft", args = { recipe = "iron-plate" } }, "args.jobs[0].args.recipe" },
    { { kind = "craft", args = { recipe = "iron-gear-wheel", count = 0 } }, "args.jobs[0].args.count" },
    { { kind = "place", args = { pos = { x = 1, y = 1 } } }, "args.jobs[0].args.item" },
    { { kind = "place", args = { item = "iron-plate", pos = { x = 1, y = 1 } } }, "args.jobs[0].args.item" },
    { { kind = "place", args = { item = "wooden-chest" } }, "args.jobs[0].args.pos" },
    { { kind = "place", args = { item = "wooden-chest", pos = { x = 1, y = 1 }, direction = "up" } },
      "args.jobs[0].args.direction" },
    { { kind = "insert", args = { item = "coal", count = 1 } }, "args.jobs[0].args.unit_number" },
    { { kind = "insert", args = { unit_number = 5, count = 1 } }, "args.jobs[0].args.item" },
    { { kind = "insert", args = { unit_number = 5, item = "unobtainium", count = 1 } }, "args.jobs[0].args.item" },
    { { kind = "insert", args = { unit_number = 5, item = "coal" } }, "args.jobs[0].args.count" },
    { { kind = "take", args = { unit_number = 5, item = "coal", count = 10001 } }, "args.jobs[0].args.count" },
  }
  for _, c in ipairs(cases) do
    E.err(enqueue(w, { c[1] }), P.code.bad_request, { field = c[2] }, E.show(c[1]))
  end
  local err = E.err(enqueue(w, {
    { kind = "walk_to", args = { pos = { x = 1, y = 1 } } },
    { kind = "craft", args = { recipe = "iron-gear-wheel", count = 1.5 } },
  }), P.code.bad_request, { field = "args.jobs[1].args.count" })
  E.truthy(err.message:find("args.jobs[1].args.count", 1, true), "message names the field")
  E.eq(E.ok(w:rpc({ op = "jobs" })).jobs, {}, "nothing was queued")
end)

test("every kind with valid args is accepted", function()
  local w = W.with_body()
  local ids = E.ok(enqueue(w, {
    { kind = "walk_to", args = { pos = { x = 1, y = 1 }, radius = 0.5 } },
    { kind = "mine", args = { unit_number = 5 } },
    { kind = "mine", args = { pos = { x = 1, y = 1 }, name = "iron-ore", count = 1000 } },
    { kind = "craft", args = { recipe = "iron-gear-wheel", count = 1000 } },
    { kind = "place", args = { item = "wooden-chest", pos = { x = 1, y = 1 }, direction = "west" } },
    { kind = "insert", args = { unit_number = 5, item = "coal", count = 10000 } },
    { kind = "take", args = { unit_number = 5, item = "coal", count = 1 }, timeout_ticks = 60 },
    { kind = "walk_to", args = { pos = { x = 1, y = 1 } }, timeout_ticks = 216000 },
  })).ids
  E.eq(#ids, 8, "eight ids")
end)

test("walk_to walks the body there: job_done with its position, then queue_idle", function()
  local w, b = W.with_body()
  local id = E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = 20, y = -10 }, radius = 1 } } })).ids[1]
  w:tick(1)
  E.eq(record(w, id).state, P.job_state.running, "running")
  local r = run_until_ended(w, id, 2000)
  E.eq(r.state, P.job_state.done, "done")
  E.truthy(math.sqrt((b.position.x - 20) ^ 2 + (b.position.y + 10) ^ 2) <= 1, "arrived within radius")
  E.eq(r.result.position, b.position, "result position")
  local done = events_of(w, P.kind.job_done)
  E.eq(#done, 1, "job_done")
  E.eq(done[1].job_id, id, "job_id")
  E.eq(done[1].job_kind, "walk_to", "job_kind")
  E.truthy(done[1].result.position, "result in the event")
  local idle = events_of(w, P.kind.queue_idle)
  E.eq(#idle, 1, "queue_idle")
  E.eq(idle[1].last_job_id, id, "last_job_id")
  E.truthy(idle[1].seq > done[1].seq, "queue_idle after job_done")
  E.truthy(r.started_tick >= r.enqueued_tick and r.ended_tick > r.started_tick, "ticks recorded")
end)

test("queue_idle fires only when the last queued job ends", function()
  local w = W.with_body()
  local ids = E.ok(enqueue(w, {
    { kind = "walk_to", args = { pos = { x = 3, y = 0 } } },
    { kind = "walk_to", args = { pos = { x = 6, y = 0 } } },
  })).ids
  run_until_ended(w, ids[2], 2000)
  E.eq(#events_of(w, P.kind.job_done), 2, "two done")
  local idle = events_of(w, P.kind.queue_idle)
  E.eq(#idle, 1, "one queue_idle")
  E.eq(idle[1].last_job_id, ids[2], "after the last")
end)

test("walk_to goes around a wall on the pathfinder's waypoints", function()
  local w, b = W.with_body({ blocked = { { left_top = { x = 4, y = -10 }, right_bottom = { x = 6, y = 10 } } } })
  local id = E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = 20, y = 0 } } } })).ids[1]
  local r = run_until_ended(w, id, 3000)
  E.eq(r.state, P.job_state.done, "done: " .. E.show(r))
  E.truthy(math.sqrt((b.position.x - 20) ^ 2 + b.position.y ^ 2) <= 1, "arrived")
  E.eq(#w.path_log, 1, "one path request")
  E.eq(w.path_log[1].ignore, b, "the body ignores itself")
  E.eq(#events_of(w, P.kind.queue_idle), 1, "queue_idle")
end)

test("walk_to a walled-in goal fails unreachable", function()
  local w = W.with_body({ blocked = {
    { left_top = { x = 15, y = -6 }, right_bottom = { x = 25, y = -5 } },
    { left_top = { x = 15, y = 5 }, right_bottom = { x = 25, y = 6 } },
    { left_top = { x = 14, y = -6 }, right_bottom = { x = 15, y = 6 } },
    { left_top = { x = 25, y = -6 }, right_bottom = { x = 26, y = 6 } },
  } })
  local id = E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = 20, y = 0 } } } })).ids[1]
  local r = run_until_ended(w, id, 500)
  E.eq(r.state, P.job_state.failed, "failed")
  E.eq(r.reason, P.reason.unreachable, "reason")
  local failed = events_of(w, P.kind.job_failed)
  E.eq(failed[1].reason, P.reason.unreachable, "event reason")
  E.truthy(type(failed[1].message) == "string" and #failed[1].message > 0, "message")
end)

test("walk_to into an obstacle the pathfinder did not foresee fails blocked", function()
  local w = W.with_body({ hidden_blocked = { { left_top = { x = 4, y = -50 }, right_bottom = { x = 6, y = 50 } } } })
  local id = E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = 20, y = 0 } } } })).ids[1]
  local r = run_until_ended(w, id, 2000)
  E.eq(r.state, P.job_state.failed, "failed")
  E.eq(r.reason, P.reason.blocked, "reason")
  local failed = events_of(w, P.kind.job_failed)
  E.eq(#failed, 1, "job_failed")
  E.eq(failed[1].job_kind, "walk_to", "kind")
  E.eq(#events_of(w, P.kind.queue_idle), 1, "queue_idle after a failure too")
end)

test("when the pathfinder is busy the body asks again", function()
  local w = W.with_body({ path_busy = 2 })
  local id = E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = 15, y = 0 } } } })).ids[1]
  E.eq(run_until_ended(w, id, 2000).state, P.job_state.done, "done")
  E.eq(#w.path_log, 3, "asked three times")
end)

test("a short walk goes straight, without the pathfinder", function()
  local w = W.with_body()
  local id = E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = storage.body.position.x + 3, y = 0 } } } })).ids[1]
  E.eq(run_until_ended(w, id, 500).state, P.job_state.done, "done")
  E.eq(#w.path_log, 0, "no path request")
end)

test("a path answer for another request is ignored", function()
  local w = W.with_body({ path_delay = 5 })
  E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = 30, y = 0 } } } }))
  w:tick(2)
  w:raise("on_script_path_request_finished", { id = 424242, try_again_later = false })
  E.truthy(storage.walk and storage.walk.no_path == nil, "the walk did not take it")
end)

test("a job running past timeout_ticks fails with timeout", function()
  local w = W.with_body()
  local id = E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = 500, y = 0 } }, timeout_ticks = 60 } })).ids[1]
  local r = run_until_ended(w, id, 200)
  E.eq(r.state, P.job_state.failed, "failed")
  E.eq(r.reason, P.reason.timeout, "timeout")
  E.eq(r.ended_tick - r.started_tick, 60, "after exactly timeout_ticks")
end)

test("mine a resource by pos and name: count units into the body's inventory", function()
  local w, b = W.with_body()
  local id = E.ok(enqueue(w, { { kind = "mine", args = { pos = { x = 12.5, y = 0.5 }, name = "iron-ore", count = 3 } } })).ids[1]
  local r = run_until_ended(w, id, 5000)
  E.eq(r.state, P.job_state.done, "done: " .. E.show(r))
  E.eq(r.result, { mined = { ["iron-ore"] = 3 } }, "result")
  E.eq(b.get_item_count("iron-ore"), 3, "in the inventory")
end)

test("mine by unit number takes the whole entity", function()
  local w, b = W.with_body()
  local chest = game.surfaces.nauvis.find_entities_filtered({ name = "wooden-chest" })[1]
  local unit = chest.unit_number
  local id = E.ok(enqueue(w, { { kind = "mine", args = { unit_number = unit } } })).ids[1]
  local r = run_until_ended(w, id, 5000)
  E.eq(r.state, P.job_state.done, "done: " .. E.show(r))
  E.eq(r.result.mined, { ["wooden-chest"] = 1, coal = 20 }, "mined, with what the chest held")
  E.eq(game.get_entity_by_unit_number(unit), nil, "the chest is gone")
  E.eq(b.get_item_count("wooden-chest"), 1, "in the inventory")
end)

test("mine trees by name goes on to the next one near pos", function()
  local w = W.with_body()
  w:spawn({ name = "tree-01", position = { x = -9, y = 5 } })
  local id = E.ok(enqueue(w, { { kind = "mine", args = { pos = { x = -8, y = 4 }, name = "tree-01", count = 2 } } })).ids[1]
  local r = run_until_ended(w, id, 5000)
  E.eq(r.state, P.job_state.done, "done: " .. E.show(r))
  E.eq(r.result.mined, { wood = 8 }, "two trees")
end)

test("mine with nothing there or an unminable target fails invalid_target", function()
  local w = W.with_body()
  local cliff = w:spawn({ name = "cliff", position = { x = 3, y = 3 } })
  local ids = E.ok(enqueue(w, {
    { kind = "mine", args = { pos = { x = 40, y = 40 }, name = "iron-ore" } },
    { kind = "mine", args = { unit_number = 99999 } },
    { kind = "mine", args = { pos = { x = 3, y = 3 }, name = "cliff" } },
  })).ids
  run_until_ended(w, ids[3], 100)
  for _, id in ipairs(ids) do
    E.eq(record(w, id).reason, P.reason.invalid_target, "job " .. id)
  end
  E.truthy(cliff.valid, "the cliff stays")
end)

test("mine fails blocked when the inventory is full", function()
  local w, b = W.with_body()
  b.insert({ name = "stone", count = 80 * 50 })
  local id = E.ok(enqueue(w, { { kind = "mine", args = { pos = { x = 12.5, y = 0.5 }, name = "iron-ore" } } })).ids[1]
  local r = run_until_ended(w, id, 5000)
  E.eq(r.reason, P.reason.blocked, "blocked: " .. E.show(r))
end)

test("craft hand-crafts count items from the body's inventory", function()
  local w, b = W.with_body()
  b.insert({ name = "iron-plate", count = 10 })
  local id = E.ok(enqueue(w, { { kind = "craft", args = { recipe = "iron-gear-wheel", count = 3 } } })).ids[1]
  local r = run_until_ended(w, id, 2000)
  E.eq(r.state, P.job_state.done, "done: " .. E.show(r))
  E.eq(r.result, { crafted = 3 }, "result")
  E.eq(b.get_item_count("iron-gear-wheel"), 3, "gears")
  E.eq(b.get_item_count("iron-plate"), 4, "plates used")
end)

test("craft without the ingredients fails missing_item; a disabled recipe invalid_target", function()
  local w, b = W.with_body()
  b.insert({ name = "iron-plate", count = 3 })
  local ids = E.ok(enqueue(w, {
    { kind = "craft", args = { recipe = "iron-gear-wheel", count = 2 } },
    { kind = "craft", args = { recipe = "electronic-circuit" } },
  })).ids
  run_until_ended(w, ids[2], 100)
  local first = record(w, ids[1])
  E.eq(first.reason, P.reason.missing_item, "missing_item")
  E.truthy(first.message:find("1 of 2", 1, true), "message says how many: " .. first.message)
  E.eq(record(w, ids[2]).reason, P.reason.invalid_target, "disabled recipe")
  E.eq(b.get_item_count("iron-plate"), 3, "nothing consumed")
end)

test("place puts an entity from the body's inventory and returns its unit number", function()
  local w, b = W.with_body()
  b.insert({ name = "wooden-chest", count = 2 })
  local id = E.ok(enqueue(w, { { kind = "place", args = { item = "wooden-chest", pos = { x = 25, y = 3 }, direction = "east" } } })).ids[1]
  local r = run_until_ended(w, id, 2000)
  E.eq(r.state, P.job_state.done, "done: " .. E.show(r))
  local e = game.get_entity_by_unit_number(r.result.unit_number)
  E.truthy(e, "placed entity exists")
  E.eq(e.name, "wooden-chest", "name")
  E.eq(e.position, { x = 25, y = 3 }, "position")
  E.eq(e.direction, defines.direction.east, "direction")
  E.eq(b.get_item_count("wooden-chest"), 1, "one used")
  E.eq(#w.built, 1, "raised as built")
end)

test("place on the spot where the body stands steps aside first", function()
  local w, b = W.with_body()
  b.insert({ name = "wooden-chest", count = 1 })
  local spot = b.position
  local id = E.ok(enqueue(w, { { kind = "place", args = { item = "wooden-chest", pos = spot } } })).ids[1]
  local r = run_until_ended(w, id, 500)
  E.eq(r.state, P.job_state.done, "done: " .. E.show(r))
  E.eq(game.get_entity_by_unit_number(r.result.unit_number).position, spot, "placed where asked")
  E.truthy(math.sqrt((b.position.x - spot.x) ^ 2 + (b.position.y - spot.y) ^ 2) >= 1.5, "the body moved off")
end)

test("place fails missing_item without the item and blocked where something stands", function()
  local w, b = W.with_body()
  local ids = E.ok(enqueue(w, { { kind = "place", args = { item = "wooden-chest", pos = { x = 2, y = 2 } } } })).ids
  E.eq(run_until_ended(w, ids[1], 100).reason, P.reason.missing_item, "missing_item")
  b.insert({ name = "wooden-chest", count = 1 })
  ids = E.ok(enqueue(w, { { kind = "place", args = { item = "wooden-chest", pos = { x = 5.5, y = 5.5 } } } })).ids
  E.eq(run_until_ended(w, ids[1], 500).reason, P.reason.blocked, "occupied")
  E.eq(b.get_item_count("wooden-chest"), 1, "kept")
end)

test("insert moves items from the body into an entity; take moves them back", function()
  local w, b = W.with_body()
  local chest = game.surfaces.nauvis.find_entities_filtered({ name = "wooden-chest" })[1]
  b.insert({ name = "iron-plate", count = 7 })
  local ids = E.ok(enqueue(w, {
    { kind = "insert", args = { unit_number = chest.unit_number, item = "iron-plate", count = 5 } },
    { kind = "take", args = { unit_number = chest.unit_number, item = "coal", count = 50 } },
  })).ids
  run_until_ended(w, ids[2], 2000)
  E.eq(record(w, ids[1]).result, { inserted = 5 }, "inserted")
  E.eq(record(w, ids[2]).result, { taken = 20 }, "took what there was")
  E.eq(chest.get_item_count("iron-plate"), 5, "chest plates")
  E.eq(chest.get_item_count("coal"), 0, "chest coal")
  E.eq(b.get_item_count("coal"), 20, "body coal")
  E.eq(b.get_item_count("iron-plate"), 2, "body plates")
end)

test("insert and take fail missing_item when there is none, invalid_target when the entity is gone", function()
  local w = W.with_body()
  local chest = game.surfaces.nauvis.find_entities_filtered({ name = "wooden-chest" })[1]
  local ids = E.ok(enqueue(w, {
    { kind = "insert", args = { unit_number = chest.unit_number, item = "iron-gear-wheel", count = 1 } },
    { kind = "take", args = { unit_number = chest.unit_number, item = "iron-gear-wheel", count = 1 } },
    { kind = "take", args = { unit_number = 424242, item = "coal", count = 1 } },
  })).ids
  run_until_ended(w, ids[3], 2000)
  E.eq(record(w, ids[1]).reason, P.reason.missing_item, "insert")
  E.eq(record(w, ids[2]).reason, P.reason.missing_item, "take")
  E.eq(record(w, ids[3]).reason, P.reason.invalid_target, "gone")
end)

test("jobs_cancel cancels a queued job, a running job, or all, and fires no event", function()
  local w = W.with_body()
  local ids = E.ok(enqueue(w, {
    { kind = "walk_to", args = { pos = { x = 300, y = 0 } } },
    { kind = "walk_to", args = { pos = { x = 0, y = 300 } } },
    { kind = "walk_to", args = { pos = { x = -300, y = 0 } } },
  })).ids
  w:tick(5)
  local before = #all_events(w)
  E.eq(E.ok(w:rpc({ op = "jobs_cancel", id = W.id(), args = { job = ids[2] } })), { cancelled = { ids[2] } }, "queued one")
  E.eq(E.ok(w:rpc({ op = "jobs_cancel", id = W.id(), args = { job = ids[1] } })), { cancelled = { ids[1] } }, "running one")
  E.eq(record(w, ids[1]).state, P.job_state.cancelled, "cancelled state")
  w:tick(2)
  E.eq(record(w, ids[3]).state, P.job_state.running, "the next one runs")
  E.eq(E.ok(w:rpc({ op = "jobs_cancel", id = W.id(), args = { job = "all" } })), { cancelled = { ids[3] } }, "all")
  w:tick(5)
  E.eq(#all_events(w), before, "no job_failed, no queue_idle")
  E.eq(E.ok(w:rpc({ op = "jobs_cancel", id = W.id(), args = { job = "all" } })).cancelled, {}, "all on an empty queue")
end)

test("jobs_cancel of an unknown or finished job answers not_found; a bad job arg bad_request", function()
  local w = W.with_body()
  local id = E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = 1, y = 0 } } } })).ids[1]
  run_until_ended(w, id, 500)
  E.err(w:rpc({ op = "jobs_cancel", id = W.id(), args = { job = id } }), P.code.not_found, { what = P.what.job })
  E.err(w:rpc({ op = "jobs_cancel", id = W.id(), args = { job = 77 } }), P.code.not_found, { what = P.what.job })
  for _, bad in ipairs({ 0, -1, 1.5, "some", true }) do
    E.err(w:rpc({ op = "jobs_cancel", id = W.id(), args = { job = bad } }), P.code.bad_request, { field = "args.job" })
  end
  E.err(w:rpc({ op = "jobs_cancel", id = W.id(), args = {} }), P.code.bad_request, { field = "args.job" })
end)

test("stop halts the running job without an event, holds the queue, and fires stopped", function()
  local w, b = W.with_body()
  local ids = E.ok(enqueue(w, {
    { kind = "walk_to", args = { pos = { x = 300, y = 0 } } },
    { kind = "walk_to", args = { pos = { x = 0, y = 300 } } },
  })).ids
  w:tick(10)
  E.eq(E.ok(w:rpc({ op = "stop", id = W.id() })), { stopped = true }, "result")
  E.eq(record(w, ids[1]).state, P.job_state.cancelled, "running job cancelled")
  local pos = b.position
  w:tick(100)
  E.eq(b.position, pos, "the body stands still")
  E.eq(record(w, ids[2]).state, P.job_state.queued, "queued job waits")
  local stopped = events_of(w, P.kind.stopped)
  E.eq(#stopped, 1, "stopped event")
  E.eq(stopped[1].by, "agent", "by agent")
  E.eq(#events_of(w, P.kind.job_failed), 0, "no job_failed")
  local status = E.ok(w:rpc({ op = "status" }))
  E.eq(status.stopped, true, "latched")
  E.eq(status.queue, { length = 1 }, "queue (running null)")
end)

test("stop also stops hand-crafting and gives the ingredients back", function()
  local w, b = W.with_body()
  b.insert({ name = "iron-plate", count = 10 })
  E.ok(enqueue(w, { { kind = "craft", args = { recipe = "iron-gear-wheel", count = 5 } } }))
  w:tick(2)
  E.eq(b.crafting_queue_size, 5, "crafting")
  E.ok(w:rpc({ op = "stop", id = W.id() }))
  E.eq(b.crafting_queue_size, 0, "crafting stopped")
  E.eq(b.get_item_count("iron-plate"), 10, "plates back")
end)

test("jobs_enqueue lifts the stop latch and the held queue runs", function()
  local w = W.with_body()
  local ids = E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = 300, y = 0 } } } })).ids
  w:tick(2)
  E.ok(w:rpc({ op = "stop", id = W.id() }))
  local held = E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = 2, y = 0 } } } })).ids
  E.eq(E.ok(w:rpc({ op = "status" })).stopped, false, "latch lifted")
  E.eq(record(w, ids[1]).state, P.job_state.cancelled, "the stopped job stays cancelled")
  E.eq(run_until_ended(w, held[1], 500).state, P.job_state.done, "runs")
end)

test("idle lifts the stop latch", function()
  local w = W.with_body()
  E.ok(w:rpc({ op = "stop", id = W.id() }))
  E.ok(w:rpc({ op = "idle", id = W.id(), args = { mode = "follow" } }))
  E.eq(E.ok(w:rpc({ op = "status" })).stopped, false, "latch lifted")
end)

test("/coop-stop from a player stops the body with by = the player's name", function()
  local w = W.with_body()
  w:command("coop-stop", "alice")
  local stopped = events_of(w, P.kind.stopped)
  E.eq(stopped[1].by, "alice", "by")
  E.eq(storage.stopped, true, "latched")
end)

test("stop without a body answers unavailable body", function()
  local w = W.standard({ players = {} })
  E.err(w:rpc({ op = "stop", id = W.id() }), P.code.unavailable, { what = P.what.body })
end)

test("a job record holds every field of the page", function()
  local w = W.with_body({ tick = 1000 })
  local id = E.ok(enqueue(w, { { kind = "walk_to", args = { pos = { x = 10, y = 4 } }, timeout_ticks = 3600 } })).ids[1]
  local q = record(w, id)
  E.eq(q, { id = id, kind = "walk_to", args = { pos = { x = 10, y = 4 } }, timeout_ticks = 3600, state = "queued",
    enqueued_tick = 1001 }, "queued record (null fields absent)")
  w:tick(1)
  local r = record(w, id)
  E.eq(r.state, "running", "running")
  E.eq(r.started_tick, 1002, "started")
end)

test("the jobs op keeps queued and running records and the 64 newest finished", function()
  local w = W.with_body()
  for _ = 1, 10 do
    local batch = {}
    for i = 1, 8 do batch[i] = { kind = "craft", args = { recipe = "iron-gear-wheel" } } end
    E.ok(enqueue(w, batch))
    w:tick(2) -- each craft fails at once: no plates
  end
  w:tick(100)
  local list = E.ok(w:rpc({ op = "jobs" })).jobs
  E.eq(#list, P.finished_jobs_kept, "64 kept")
  E.eq(list[1].id, 80 - P.finished_jobs_kept + 1, "oldest kept")
  E.eq(list[#list].id, 80, "newest")
end)

test("the body dying fails the running job with body_died; queued jobs wait for the respawn", function()
  local w, b = W.with_body()
  local ids = E.ok(enqueue(w, {
    { kind = "walk_to", args = { pos = { x = 300, y = 0 } } },
    { kind = "walk_to", args = { pos = { x = 3, y = 3 } } },
  })).ids
  w:tick(5)
  local biter = w:spawn({ name = "small-biter", position = { x = b.position.x + 1, y = b.position.y }, force = "enemy" })
  w:kill(b, biter, "enemy")
  E.eq(record(w, ids[1]).reason, P.reason.body_died, "body_died")
  local died = events_of(w, P.kind.body_died)
  E.eq(#died, 1, "body_died event")
  E.eq(died[1].cause, "small-biter", "cause")
  E.eq(E.ok(w:rpc({ op = "status" })).body.state, P.body_state.dead, "dead")
  E.eq(record(w, ids[2]).state, P.job_state.queued, "waits")
  E.eq(#events_of(w, P.kind.queue_idle), 0, "the queue is not idle")
  w:tick(600)
  local back = events_of(w, P.kind.body_respawned)
  E.eq(#back, 1, "respawned")
  E.truthy(back[1].position, "respawn position")
  E.eq(E.ok(w:rpc({ op = "status" })).body.state, P.body_state.alive, "alive")
  E.eq(run_until_ended(w, ids[2], 2000).state, P.job_state.done, "the queued job ran")
end)

test("a Lua error inside a job fails that job, logs it, and the queue goes on", function()
  local w = W.with_body()
  local ids = E.ok(enqueue(w, {
    { kind = "take", args = { unit_number = 5, item = "coal", count = 1 } },
    { kind = "walk_to", args = { pos = { x = 2, y = 2 } } },
  })).ids
  -- The game raises when a mod misuses an object; make the target lookup do that for one tick.
  local real_game = game
  _G.game = setmetatable({}, { __index = function(_, k)
    if k == "get_entity_by_unit_number" then return function() error("LuaGameScript: boom") end end
    return real_game[k]
  end })
  w:tick(1)
  _G.game = real_game
  local r = record(w, ids[1])
  E.eq(r.state, P.job_state.failed, "failed")
  E.eq(r.reason, P.reason.invalid_target, "reason")
  E.truthy(r.message:find("boom"), "message carries the error")
  E.eq(#w:error_logs(), 1, "logged once")
  w.logs = {}
  E.eq(run_until_ended(w, ids[2], 500).state, P.job_state.done, "the next job ran")
end)
