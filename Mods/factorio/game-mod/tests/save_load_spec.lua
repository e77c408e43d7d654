-- Save/load: storage holds only plain data and game objects, survives a save and a load, and
-- the mod carries on where it was (seq, jobs, idempotent writes, idle mode, the latch).
local P = require("protocol")
local E = require("expect")
local W = require("world")
local fake = require("factorio")

local function busy_world()
  local w, b = W.with_body()
  b.insert({ name = "iron-plate", count = 6 })
  w:chat("alice", "before the save")
  E.ok(w:rpc({ op = "say", id = "saved-write", args = { text = "hello" } }))
  E.ok(w:rpc({ op = "jobs_enqueue", id = W.id(), args = { jobs = {
    { kind = "walk_to", args = { pos = { x = 40, y = 0 } } },
    { kind = "craft", args = { recipe = "iron-gear-wheel", count = 2 } },
  } } }))
  E.ok(w:rpc({ op = "idle", id = W.id(), args = { mode = "stay", pos = { x = 2, y = 2 } } }))
  w:tick(30)
  return w, b
end

test("storage holds no functions, no metatables, no shared tables after every kind of activity", function()
  local w, b = busy_world()
  local chest = game.surfaces.nauvis.find_entities_filtered({ name = "wooden-chest" })[1]
  local biter = w:spawn({ name = "small-biter", position = { x = b.position.x + 3, y = b.position.y }, force = "enemy" })
  w:damage(chest, 1, "enemy", biter)
  w:damage(b, 1, "enemy", biter)
  E.ok(w:rpc({ op = "jobs_enqueue", id = W.id(), args = { jobs = {
    { kind = "mine", args = { pos = { x = 12.5, y = 0.5 }, name = "iron-ore", count = 2 } },
  } } }))
  w:command("coop-stay", "alice")
  w:tick(P.summary_ticks)
  w:kill(b, biter, "enemy")
  w:tick(700)
  local kinds = {}
  for _, e in pairs(storage.events.buf) do kinds[e.kind] = true end
  for _, k in ipairs({ "job_done", "queue_idle", "attack_started", "attack_ended", "body_threat", "body_damaged",
    "snapshot_summary", "idle_changed", "body_died", "body_respawned", "chat" }) do
    E.truthy(kinds[k], "the activity produced " .. k)
  end
  local ok, err = pcall(fake.save_copy, storage, "", {})
  E.truthy(ok, err)
end)

test("after a save and load the map id, events, jobs and settings carry on", function()
  local w, b = busy_world()
  local before = E.ok(w:rpc({ op = "status" }))
  w:save_and_load()
  local after = E.ok(w:rpc({ op = "status" }))
  E.eq(after.map_id, before.map_id, "map id")
  E.eq(after.seq, before.seq, "seq")
  E.eq(after.queue, before.queue, "queue")
  E.eq(after.idle, before.idle, "idle")
  w:chat("alice", "after the load")
  local evs = E.ok(w:rpc({ op = "events_since", args = { seq = before.seq } })).events
  E.eq(evs[1].seq, before.seq + 1, "seq goes on")
  -- The running walk and the queued craft finish after the load.
  w:run_until(function() return storage.jobs.running == nil and E.ok(w:rpc({ op = "status" })).queue.length == 0 end, 5000)
  local jobs = E.ok(w:rpc({ op = "jobs" })).jobs
  E.eq(jobs[1].state, P.job_state.done, "walk done")
  E.eq(jobs[2].state, P.job_state.done, "craft done")
  E.eq(b.get_item_count("iron-gear-wheel"), 2, "gears made")
end)

test("a stored write still replays, and still conflicts, after a load", function()
  local w = busy_world()
  w:save_and_load()
  E.eq(w:rpc({ op = "say", id = "saved-write", args = { text = "hello" } }).replayed, true, "replayed")
  E.err(w:rpc({ op = "say", id = "saved-write", args = { text = "other" } }), P.code.id_conflict)
end)

test("the stop latch survives a load", function()
  local w, b = busy_world()
  E.ok(w:rpc({ op = "stop", id = W.id() }))
  w:save_and_load()
  local pos = b.position
  w:tick(120)
  E.eq(b.position, pos, "still stopped")
  E.eq(E.ok(w:rpc({ op = "status" })).stopped, true, "latched")
end)

test("a load rolls back to the saved ring: head below what was read (a rollback)", function()
  local w = busy_world()
  local saved = fake.save_copy(storage, "", {})
  local at_save = E.ok(w:rpc({ op = "status" })).seq
  for i = 1, 5 do w:chat("alice", "lost " .. i) end
  E.eq(E.ok(w:rpc({ op = "status" })).seq, at_save + 5, "moved on")
  -- Load the older save: storage is the saved copy again.
  w:run_control()
  _G.storage = saved
  local r = E.ok(w:rpc({ op = "events_since", args = { seq = at_save + 5 } }))
  E.eq(r.head_seq, at_save, "head back at the save")
  E.eq(r.events, {}, "nothing above head")
  E.eq(r.map_id, storage.map_id, "same map")
end)

test("a mod update keeps storage and fills in what is missing", function()
  local w = busy_world()
  storage.attack = nil
  w:update_mod()
  E.truthy(storage.attack ~= nil, "filled in")
  E.ok(w:rpc({ op = "status" }))
  w:tick(60)
end)

test("the mod registers every handler the same way on load as on init", function()
  local w = W.standard()
  local first = {}
  for id in pairs(w.handlers) do first[#first + 1] = id end
  table.sort(first)
  local nth = {}
  for n in pairs(w.nth) do nth[#nth + 1] = n end
  table.sort(nth)
  w:save_and_load()
  local again = {}
  for id in pairs(w.handlers) do again[#again + 1] = id end
  table.sort(again)
  local nth2 = {}
  for n in pairs(w.nth) do nth2[#nth2 + 1] = n end
  table.sort(nth2)
  E.eq(again, first, "events")
  E.eq(nth2, nth, "nth ticks")
  E.truthy(w.commands["coop-rpc"] ~= nil, "command registered")
end)
