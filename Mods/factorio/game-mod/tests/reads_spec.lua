-- The read ops: status, snapshot (every section), find, inspect, recipe.
local P = require("protocol")
local E = require("expect")
local W = require("world")

test("status reports version, map id, seq, tick, host, body, idle, latch and queue", function()
  local w = W.with_body({ tick = 41 })
  w:chat("alice", "hi")
  local s = E.ok(w:rpc({ op = "status" }))
  E.eq(s.version, P.version, "version")
  E.eq(s.map_id, storage.map_id, "map_id")
  E.eq(s.seq, 1, "seq")
  E.eq(s.oldest_seq, 1, "oldest_seq")
  E.eq(s.tick, 42, "tick")
  E.eq(s.host, { name = "alice", state = P.host_state.online, position = { x = 0, y = 0 } }, "host")
  E.eq(s.body.name, P.body_name, "body name")
  E.eq(s.body.state, P.body_state.alive, "body state")
  E.eq(s.body.position, storage.body.position, "body position")
  E.eq(s.idle, { mode = "follow" }, "idle (pos null)")
  E.eq(s.stopped, false, "stopped")
  E.eq(s.queue, { length = 0 }, "queue (running null)")
end)

test("status counts queued plus running jobs and names the running one", function()
  local w = W.with_body()
  E.ok(w:rpc({ op = "jobs_enqueue", id = W.id(), args = { jobs = {
    { kind = "walk_to", args = { pos = { x = 90, y = 0 } } },
    { kind = "walk_to", args = { pos = { x = 0, y = 0 } } },
  } } }))
  w:tick(1)
  E.eq(E.ok(w:rpc({ op = "status" })).queue, { length = 2, running = 1 }, "queue")
end)

test("the map id is made once and differs between maps", function()
  local w = W.standard({ seed = 1, tick = 0 })
  local first = storage.map_id
  E.truthy(type(first) == "string" and #first > 0, "a string")
  w:tick(10)
  w:update_mod()
  E.eq(storage.map_id, first, "kept across a mod update")
  W.standard({ seed = 2, tick = 0 })
  E.truthy(storage.map_id ~= first, "another seed, another map")
  W.standard({ seed = 1, tick = 5000 })
  E.truthy(storage.map_id ~= first, "added to a save later, another map")
end)

test("host state: offline, dead, none", function()
  local w = W.standard({ players = { { name = "alice", position = { x = 0, y = 0 }, connected = false } } })
  E.eq(E.ok(w:rpc({ op = "status" })).host.state, P.host_state.offline, "offline")
  w:join("alice")
  w:kill(w:player("alice").character)
  E.eq(E.ok(w:rpc({ op = "status" })).host.state, P.host_state.dead, "dead")
  local none = W.standard({ players = {} })
  local s = E.ok(none:rpc({ op = "status" }))
  E.eq(s.host, { state = P.host_state.none }, "none")
  E.eq(s.body.state, P.body_state.none, "no body without a host")
end)

test("the host setting picks the host by name", function()
  local w = W.standard({
    players = { { name = "alice", position = { x = 0, y = 0 } }, { name = "bob", position = { x = 9, y = 9 } } },
    settings = { ["coop-agent-host-player"] = "bob" },
  })
  E.eq(E.ok(w:rpc({ op = "status" })).host.name, "bob", "bob hosts")
end)

test("snapshot without sections returns every section", function()
  local w = W.with_body()
  local r = E.ok(w:rpc({ op = "snapshot" }))
  for _, name in ipairs(P.sections) do E.truthy(r.sections[name] ~= nil, "section " .. name) end
  local n = 0
  for _ in pairs(r.sections) do n = n + 1 end
  E.eq(n, #P.sections, "exactly the sections")
  local empty = E.ok(w:rpc({ op = "snapshot", args = { sections = {} } }))
  E.eq(empty, r, "empty means all")
end)

test("snapshot returns exactly the asked sections", function()
  local w = W.with_body()
  local r = E.ok(w:rpc({ op = "snapshot", args = { sections = { "jobs", "body" } } }))
  E.eq(r.sections.jobs, { length = 0, queued = {} }, "jobs")
  E.eq(r.sections.host, nil, "host not asked")
  E.eq(r.sections.body.name, P.body_name, "body")
end)

test("an unknown section answers bad_request naming its index", function()
  local w = W.with_body()
  E.err(w:rpc({ op = "snapshot", args = { sections = { "body", "weather" } } }), P.code.bad_request,
    { field = "args.sections[1]" })
  E.err(w:rpc({ op = "snapshot", args = { sections = "body" } }), P.code.bad_request, { field = "args.sections" })
  E.err(w:rpc({ op = "snapshot", args = { sections = { 3 } } }), P.code.bad_request, { field = "args.sections[0]" })
end)

test("snapshot body and host carry health and the main inventory", function()
  local w, b = W.with_body()
  b.insert({ name = "coal", count = 7 })
  local s = E.ok(w:rpc({ op = "snapshot", args = { sections = { "body", "host" } } })).sections
  E.eq(s.body.health, 250, "body health")
  E.eq(s.body.inventory, { coal = 7 }, "body inventory")
  E.eq(s.body.idle, { mode = "follow" }, "idle")
  E.eq(s.body.stopped, false, "stopped")
  E.eq(s.host.inventory, { ["iron-plate"] = 10 }, "host inventory")
  E.eq(s.host.health, 250, "host health")
  E.eq(s.host.state, P.host_state.online, "host state")
end)

test("snapshot players lists every player with online", function()
  local w = W.standard({ players = {
    { name = "alice", position = { x = 0, y = 0 } },
    { name = "bob", position = { x = 4, y = 2 }, connected = false },
  } })
  local s = E.ok(w:rpc({ op = "snapshot", args = { sections = { "players" } } })).sections
  E.eq(s.players.players, {
    { name = "alice", position = { x = 0, y = 0 }, online = true },
    { name = "bob", position = { x = 4, y = 2 }, online = false },
  }, "players")
end)

test("snapshot research: current, progress and researched count", function()
  local w = W.standard({ research = "logistics", forces = {
    player = { enemies = { "enemy" }, research_progress = 0.25 }, enemy = { enemies = { "player" } }, neutral = {},
  } })
  local s = E.ok(w:rpc({ op = "snapshot", args = { sections = { "research" } } })).sections
  E.eq(s.research, { current = "logistics", progress = 0.25, researched = 1 }, "research")
end)

test("snapshot production: produced and consumed per item over 10 minutes", function()
  local w = W.standard({ production = { input = { ["iron-plate"] = 120, coal = 0 }, output = { ["iron-plate"] = 30, coal = 40 } } })
  local s = E.ok(w:rpc({ op = "snapshot", args = { sections = { "production" } } })).sections
  E.eq(s.production.items, {
    ["iron-plate"] = { produced = 120, consumed = 30 },
    coal = { produced = 0, consumed = 40 },
  }, "items")
end)

test("snapshot power: each electric network near the host once", function()
  -- As in the game's electric statistics: input is consumption, output is production.
  local w = W.standard({ power = { [7] = { output = { ["steam-engine"] = 1000 }, input = { inserter = 250 } } } })
  w:spawn({ name = "small-electric-pole", position = { x = 2, y = 2 }, force = "player", electric_network_id = 7 })
  w:spawn({ name = "small-electric-pole", position = { x = 8, y = 2 }, force = "player", electric_network_id = 7 })
  local s = E.ok(w:rpc({ op = "snapshot", args = { sections = { "power" } } })).sections
  E.eq(s.power.networks, { { id = 7, production_w = 60000, consumption_w = 15000 } }, "networks")
end)

test("snapshot enemies: counts within 128 tiles of the host and the nearest", function()
  local w = W.standard()
  w:spawn({ name = "biter-spawner", position = { x = 100, y = 0 }, force = "enemy" })
  w:spawn({ name = "small-worm-turret", position = { x = 90, y = 0 }, force = "enemy" })
  w:spawn({ name = "small-biter", position = { x = 0, y = 60 }, force = "enemy" })
  w:spawn({ name = "small-biter", position = { x = 0, y = 200 }, force = "enemy" })
  w:spawn({ name = "gun-turret", position = { x = 3, y = 3 }, force = "player" })
  local s = E.ok(w:rpc({ op = "snapshot", args = { sections = { "enemies" } } })).sections
  E.eq(s.enemies.spawners, 1, "spawners")
  E.eq(s.enemies.worms, 1, "worms")
  E.eq(s.enemies.units, 1, "units in range")
  E.eq(s.enemies.nearest, { name = "small-biter", position = { x = 0, y = 60 }, distance = 60 }, "nearest")
end)

test("find by name nearest to the host first, with unit numbers (null without one)", function()
  local w = W.standard()
  local r = E.ok(w:rpc({ op = "find", args = { name = "iron-ore" } }))
  E.eq(r.truncated, false, "not truncated")
  E.eq(#r.entities, 2, "two ore tiles")
  E.eq(r.entities[1], { name = "iron-ore", type = "resource", position = { x = 12.5, y = 0.5 } }, "nearest first, unit_number null")
  local chest = E.ok(w:rpc({ op = "find", args = { type = "container" } })).entities[1]
  E.eq(chest.name, "wooden-chest", "by type")
  E.truthy(chest.unit_number ~= nil, "unit number")
end)

test("find by area, by radius around the host, and the limit", function()
  local w = W.standard()
  local inside = E.ok(w:rpc({ op = "find", args = { area = { left_top = { x = 1, y = 0 }, right_bottom = { x = 13, y = 6 } } } }))
  local names = {}
  for _, e in ipairs(inside.entities) do names[#names + 1] = e.name end
  E.eq(names, { "wooden-chest", "iron-ore" }, "area, nearest first")
  local swapped = E.ok(w:rpc({ op = "find", args = { area = { left_top = { x = 13, y = 6 }, right_bottom = { x = 1, y = 0 } } } }))
  E.eq(swapped, inside, "either corner order")
  local near = E.ok(w:rpc({ op = "find", args = { around = 9 } }))
  E.eq(#near.entities, 4, "within 9 tiles: chest, furnace, tree, the host's character")
  local one = E.ok(w:rpc({ op = "find", args = { around = 20, limit = 1 } }))
  E.eq(#one.entities, 1, "limit")
  E.eq(one.truncated, true, "truncated")
end)

test("find validates its args", function()
  local w = W.standard()
  E.err(w:rpc({ op = "find", args = {} }), P.code.bad_request, { field = "args" })
  E.err(w:rpc({ op = "find", args = { around = 0 } }), P.code.bad_request, { field = "args.around" })
  E.err(w:rpc({ op = "find", args = { around = 257 } }), P.code.bad_request, { field = "args.around" })
  E.err(w:rpc({ op = "find", args = { name = "" } }), P.code.bad_request, { field = "args.name" })
  E.err(w:rpc({ op = "find", args = { type = 3 } }), P.code.bad_request, { field = "args.type" })
  E.err(w:rpc({ op = "find", args = { name = "iron-or" } }), P.code.bad_request, { field = "args.name" })
  E.err(w:rpc({ op = "find", args = { type = "factory" } }), P.code.bad_request, { field = "args.type" })
  E.err(w:rpc({ op = "find", args = { name = "x", limit = 201 } }), P.code.bad_request, { field = "args.limit" })
  E.err(w:rpc({ op = "find", args = { area = { left_top = { x = 0, y = 0 } } } }), P.code.bad_request,
    { field = "args.area.right_bottom" })
  E.err(w:rpc({ op = "find", args = { area = { left_top = { x = 0 }, right_bottom = { x = 1, y = 1 } } } }),
    P.code.bad_request, { field = "args.area.left_top.y" })
  E.err(w:rpc({ op = "find", args = { area = { left_top = { x = 0, y = 0 }, right_bottom = { x = 1025, y = 1 } } } }),
    P.code.bad_request, { field = "args.area" })
  E.ok(w:rpc({ op = "find", args = { area = { left_top = { x = 0, y = 0 }, right_bottom = { x = 1024, y = 1024 } } } }))
end)

test("find around without an online host answers unavailable host", function()
  local w = W.standard({ players = { { name = "alice", position = { x = 0, y = 0 }, connected = false } } })
  E.err(w:rpc({ op = "find", args = { around = 10 } }), P.code.unavailable, { what = P.what.host })
end)

test("inspect reads one entity by unit number", function()
  local w = W.standard()
  local furnace = game.surfaces.nauvis.find_entities_filtered({ name = "stone-furnace" })[1]
  furnace.insert({ name = "iron-ore", count = 1 })
  local e = E.ok(w:rpc({ op = "inspect", args = { unit_number = furnace.unit_number } })).entity
  E.eq(e, {
    unit_number = furnace.unit_number, name = "stone-furnace", type = "furnace", position = { x = -5, y = -5 },
    direction = "north", health = 200, status = "no_fuel", energy = 0,
    inventories = { fuel = { ["iron-ore"] = 1 }, furnace_source = {}, furnace_result = {} },
  }, "entity")
end)

test("inspect of a missing entity answers not_found entity; bad unit numbers bad_request", function()
  local w = W.standard()
  E.err(w:rpc({ op = "inspect", args = { unit_number = 987654 } }), P.code.not_found, { what = P.what.entity })
  E.err(w:rpc({ op = "inspect", args = {} }), P.code.bad_request, { field = "args.unit_number" })
  E.err(w:rpc({ op = "inspect", args = { unit_number = 0 } }), P.code.bad_request, { field = "args.unit_number" })
end)

test("recipe reads one recipe with enabled as the host's force sees it", function()
  local w = W.standard()
  local r = E.ok(w:rpc({ op = "recipe", args = { name = "iron-gear-wheel" } })).recipe
  E.eq(r, {
    name = "iron-gear-wheel", category = "crafting", energy = 0.5, enabled = true,
    ingredients = { { type = "item", name = "iron-plate", amount = 2 } },
    products = { { type = "item", name = "iron-gear-wheel", amount = 1 } },
  }, "recipe")
  E.eq(E.ok(w:rpc({ op = "recipe", args = { name = "electronic-circuit" } })).recipe.enabled, false, "disabled")
end)

test("recipe of an unknown name answers not_found recipe", function()
  local w = W.standard()
  E.err(w:rpc({ op = "recipe", args = { name = "warp-drive" } }), P.code.not_found, { what = P.what.recipe })
  E.err(w:rpc({ op = "recipe", args = {} }), P.code.bad_request, { field = "args.name" })
end)

test("every read answers on a map where nobody and no body is present", function()
  local w = W.standard({ players = {} })
  for _, op in ipairs({ "status", "snapshot", "jobs" }) do E.ok(w:rpc({ op = op }), op) end
  E.ok(w:rpc({ op = "events_since", args = { seq = 0 } }))
  E.ok(w:rpc({ op = "recipe", args = { name = "iron-gear-wheel" } }))
  E.err(w:rpc({ op = "find", args = { name = "iron-ore" } }), P.code.unavailable, { what = P.what.host })
  local r = E.ok(w:rpc({ op = "find", args = { area = { left_top = { x = 0, y = -5 }, right_bottom = { x = 20, y = 5 } } } }))
  E.eq(#r.entities, 2, "an area still searches, nearest to its centre first")
  E.eq(r.entities[1].position, { x = 12.5, y = 0.5 }, "nearer the centre (10, 0)")
end)

test("find in a dense field returns the nearest without reading the whole radius", function()
  local w = W.standard()
  for x = 1, 60 do
    for y = 1, 10 do w:spawn({ name = "copper-ore", position = { x = x + 0.5, y = y + 0.5 }, amount = 10 }) end
  end
  local r = E.ok(w:rpc({ op = "find", args = { name = "copper-ore", limit = 5 } }))
  E.eq(#r.entities, 5, "five")
  E.eq(r.truncated, true, "truncated")
  E.eq(r.entities[1].position, { x = 1.5, y = 1.5 }, "nearest first")
  local far = r.entities[5].position
  E.truthy(math.sqrt(far.x ^ 2 + far.y ^ 2) < 4, "the five nearest")
  local all = E.ok(w:rpc({ op = "find", args = { name = "copper-ore", limit = 200 } }))
  E.eq(#all.entities, 200, "a full page")
  local last = all.entities[200].position
  local d200 = math.sqrt(last.x ^ 2 + last.y ^ 2)
  for _, e in ipairs(all.entities) do
    E.truthy(math.sqrt(e.position.x ^ 2 + e.position.y ^ 2) <= d200, "sorted by distance")
  end
end)
