-- The event ring and events_since: seq, limits, gaps, rollback reads, and every event kind.
local P = require("protocol")
local E = require("expect")
local W = require("world")
local events = require("scripts.events")

local function since(w, seq, limit)
  return w:rpc({ op = "events_since", args = { seq = seq, limit = limit } })
end

local function push_n(n)
  local ev = require("scripts.events")
  for i = 1, n do ev.push(P.kind.chat, { player = "alice", text = "line " .. i }) end
end

local function kinds_of(list)
  local out = {}
  for i, e in ipairs(list) do out[i] = e.kind end
  return out
end

local function last_event(w)
  local r = E.ok(since(w, 0, 200))
  local head = r.head_seq
  local page = E.ok(since(w, math.max(0, head - 1), 1))
  return page.events[1], r
end

test("a new map has no events: head 0, oldest 1, an empty page", function()
  local w = W.standard()
  local r = E.ok(since(w, 0))
  E.eq(r.events, {}, "events")
  E.eq(r.head_seq, 0, "head_seq")
  E.eq(r.oldest_seq, 1, "oldest_seq")
  E.eq(r.map_id, storage.map_id, "map_id")
end)

test("seq starts at 1 and grows by one; every event has seq, tick and kind", function()
  local w = W.standard({ tick = 100 })
  w:chat("alice", "yui, come here")
  w:tick(5)
  w:chat("alice", "second")
  local r = E.ok(since(w, 0))
  E.eq(#r.events, 2, "two events")
  E.eq(r.events[1], { seq = 1, tick = 100, kind = P.kind.chat, player = "alice", text = "yui, come here" }, "first")
  E.eq(r.events[2].seq, 2, "second seq")
  E.eq(r.events[2].tick, 105, "second tick")
  E.eq(r.head_seq, 2, "head")
end)

test("events_since returns events after seq, ascending, contiguous, at most limit", function()
  local w = W.standard()
  push_n(10)
  local r = E.ok(since(w, 3, 4))
  local seqs = {}
  for i, e in ipairs(r.events) do seqs[i] = e.seq end
  E.eq(seqs, { 4, 5, 6, 7 }, "seqs")
  E.eq(r.head_seq, 10, "head")
end)

test("the default limit is 200 and the largest", function()
  local w = W.standard()
  push_n(250)
  local r = E.ok(w:rpc({ op = "events_since", args = { seq = 0 } }))
  E.eq(#r.events, P.events_limit_default, "default page")
  E.eq(#E.ok(since(w, 0, P.events_limit_max)).events, P.events_limit_max, "max page")
  E.err(since(w, 0, P.events_limit_max + 1), P.code.bad_request, { field = "args.limit" })
end)

test("bad seq and limit answer bad_request naming the field", function()
  local w = W.standard()
  E.err(w:rpc({ op = "events_since", args = {} }), P.code.bad_request, { field = "args.seq" })
  E.err(since(w, -1), P.code.bad_request, { field = "args.seq" })
  E.err(since(w, 1.5), P.code.bad_request, { field = "args.seq" })
  E.err(w:rpc({ op = "events_since", args = { seq = "3" } }), P.code.bad_request, { field = "args.seq" })
  E.err(since(w, 0, 0), P.code.bad_request, { field = "args.limit" })
  E.err(since(w, 0, 2.5), P.code.bad_request, { field = "args.limit" })
end)

test("a seq at or above the head gives an empty page (the bridge reads above as a rollback)", function()
  local w = W.standard()
  push_n(3)
  local at = E.ok(since(w, 3))
  E.eq(at.events, {}, "at head")
  local above = E.ok(since(w, 50))
  E.eq(above.events, {}, "above head")
  E.eq(above.head_seq, 3, "head reported")
end)

test("the ring keeps the newest 2048 events and drops the oldest", function()
  local w = W.standard()
  push_n(P.ring_size + 52)
  local r = E.ok(since(w, 52, 5))
  E.eq(r.oldest_seq, 53, "oldest")
  E.eq(r.head_seq, P.ring_size + 52, "head")
  E.eq(r.events[1].seq, 53, "first held event")
  local count = 0
  for _ in pairs(storage.events.buf) do count = count + 1 end
  E.eq(count, P.ring_size, "ring size in storage")
end)

test("asking below the oldest held event answers history_gap with oldest and head", function()
  local w = W.standard()
  push_n(P.ring_size + 10)
  local err = E.err(since(w, 5), P.code.history_gap, { oldest_seq = 11, head_seq = P.ring_size + 10 })
  E.truthy(err.message:find("11"), "message names the oldest")
  E.err(since(w, 9), P.code.history_gap)
  -- oldest_seq - 1 is the last seq that still reads without a gap.
  local ok = E.ok(since(w, 10, 1))
  E.eq(ok.events[1].seq, 11, "reads on from the oldest")
end)

test("a ring that wrapped many times still answers gaps and pages right", function()
  local w = W.standard()
  push_n(3 * P.ring_size + 7)
  local head = 3 * P.ring_size + 7
  E.err(since(w, 0), P.code.history_gap, { oldest_seq = head - P.ring_size + 1, head_seq = head })
  local r = E.ok(since(w, head - 3))
  E.eq(#r.events, 3, "tail page")
end)

test("chat: a player's line verbatim; the server console's is not an event", function()
  local w = W.standard()
  w:chat("alice", "  spaces, [gps=1,2] and ünïcode  ")
  w:raise("on_console_chat", { message = "from the console" })
  local r = E.ok(since(w, 0))
  E.eq(#r.events, 1, "one event")
  E.eq(r.events[1].text, "  spaces, [gps=1,2] and ünïcode  ", "verbatim")
  E.eq(r.events[1].player, "alice", "player")
end)

test("the body's own chat lines are not chat events", function()
  local w = W.standard()
  E.ok(w:rpc({ op = "say", id = W.id(), args = { text = "hello" } }))
  E.eq(E.ok(since(w, 0)).events, {}, "no events")
end)

test("player_joined and player_left name the player", function()
  local w = W.standard({ players = {
    { name = "alice", position = { x = 0, y = 0 } },
    { name = "bob", position = { x = 3, y = 0 }, connected = false },
  } })
  w:join("bob")
  w:leave("bob")
  local r = E.ok(since(w, 0))
  E.eq(kinds_of(r.events), { P.kind.player_joined, P.kind.player_left }, "kinds")
  E.eq(r.events[1].player, "bob", "joined")
  E.eq(r.events[2].player, "bob", "left")
end)

test("player_died carries player, position and cause", function()
  local w = W.standard()
  w:move_player("alice", { x = 4, y = 2 })
  local biter = w:spawn({ name = "small-biter", position = { x = 5, y = 2 }, force = "enemy" })
  w:kill(w:player("alice").character, biter, "enemy")
  local ev = last_event(w)
  E.eq(ev.kind, P.kind.player_died, "kind")
  E.eq(ev.player, "alice", "player")
  E.eq(ev.position, { x = 4, y = 2 }, "position")
  E.eq(ev.cause, "small-biter", "cause")
end)

test("rocket_launched carries the silo's position and unit number", function()
  local w = W.standard()
  local silo = w:spawn({ name = "rocket-silo", position = { x = 30, y = 30 }, force = "player" })
  w:raise("on_rocket_launched", { rocket_silo = silo })
  local ev = last_event(w)
  E.eq(ev.kind, P.kind.rocket_launched, "kind")
  E.eq(ev.position, { x = 30, y = 30 }, "position")
  E.eq(ev.silo, silo.unit_number, "silo")
end)

test("research_finished carries research and level", function()
  local w = W.standard()
  w:finish_research("logistics")
  local ev = last_event(w)
  E.eq(ev.kind, P.kind.research_finished, "kind")
  E.eq(ev.research, "logistics", "research")
  E.eq(ev.level, 1, "level")
end)

test("attack_started on the first enemy damage, attack_ended after 60 s of quiet", function()
  local w = W.standard()
  local chest = game.surfaces.nauvis.find_entities_filtered({ name = "wooden-chest" })[1]
  local biter = w:spawn({ name = "small-biter", position = { x = 7, y = 5 }, force = "enemy" })
  w:damage(chest, 5, "enemy", biter)
  w:tick(100)
  w:damage(chest, 5, "enemy", biter)
  local r = E.ok(since(w, 0))
  local attacks = {}
  for _, e in ipairs(r.events) do
    if e.kind == P.kind.attack_started then attacks[#attacks + 1] = e end
  end
  E.eq(#attacks, 1, "one attack_started for a running attack")
  E.eq(attacks[1].target, "wooden-chest", "target")
  E.eq(attacks[1].position, { x = 5.5, y = 5.5 }, "position")
  w:tick(P.attack_quiet_ticks - 61)
  local mid = E.ok(since(w, 0))
  for _, e in ipairs(mid.events) do E.truthy(e.kind ~= P.kind.attack_ended, "not ended before 60 s") end
  w:tick(120)
  local ended
  for _, e in ipairs(E.ok(since(w, 0)).events) do
    if e.kind == P.kind.attack_ended then ended = e end
  end
  E.truthy(ended, "attack_ended fired")
  E.eq(ended.position, { x = 5.5, y = 5.5 }, "ended position")
  -- A new attack after the quiet starts again.
  w:damage(chest, 1, "enemy", biter)
  local again = last_event(w)
  E.eq(again.kind, P.kind.attack_started, "a new attack")
end)

test("damage by a friendly force or by nothing is no attack", function()
  local w = W.standard()
  local chest = game.surfaces.nauvis.find_entities_filtered({ name = "wooden-chest" })[1]
  w:damage(chest, 5, "player", nil)
  w:damage(chest, 5, nil, nil)
  E.eq(E.ok(since(w, 0)).events, {}, "no events")
end)

test("idle_changed fires when the mode or pos changes, not on a repeat", function()
  local w = W.with_body()
  E.ok(w:rpc({ op = "idle", id = W.id(), args = { mode = "stay", pos = { x = 3, y = 4 } } }))
  E.ok(w:rpc({ op = "idle", id = W.id(), args = { mode = "stay", pos = { x = 3, y = 4 } } }))
  E.ok(w:rpc({ op = "idle", id = W.id(), args = { mode = "follow" } }))
  local r = E.ok(since(w, 0))
  E.eq(kinds_of(r.events), { P.kind.idle_changed, P.kind.idle_changed }, "two changes")
  E.eq(r.events[1].mode, "stay", "mode")
  E.eq(r.events[1].pos, { x = 3, y = 4 }, "pos")
  E.eq(r.events[2].mode, "follow", "back to follow")
  E.eq(r.events[2].pos, nil, "no pos")
end)

test("snapshot_summary every 5 minutes of game time", function()
  local w = W.with_body({ research = "logistics" })
  w:tick(P.summary_ticks)
  local found
  for _, e in ipairs(E.ok(since(w, 0)).events) do
    if e.kind == P.kind.snapshot_summary then found = e end
  end
  E.truthy(found, "summary fired")
  E.eq(found.summary.queue_length, 0, "queue_length")
  E.eq(found.summary.research, "logistics", "research")
  E.eq(found.summary.body.state, P.body_state.alive, "body")
  E.eq(found.summary.host.state, P.host_state.online, "host")
end)

test("body_threat: an enemy within 24 tiles, once per enemy per 10 s", function()
  local w, b = W.with_body()
  local pos = b.position
  local biter = w:spawn({ name = "small-biter", position = { x = pos.x + 20, y = pos.y }, force = "enemy" })
  w:spawn({ name = "small-biter", position = { x = pos.x + 40, y = pos.y }, force = "enemy" })
  w:tick(60)
  local threats = {}
  for _, e in ipairs(E.ok(since(w, 0)).events) do
    if e.kind == P.kind.body_threat then threats[#threats + 1] = e end
  end
  E.eq(#threats, 1, "one threat (the far biter is outside the radius)")
  E.eq(threats[1].enemy, "small-biter", "enemy")
  E.eq(threats[1].distance, 20, "distance")
  E.eq(threats[1].position, biter.position, "position")
  -- Body stands still (stay) so the distance holds.
  w:tick(P.threat_repeat_ticks)
  local n = 0
  for _, e in ipairs(E.ok(since(w, 0)).events) do
    if e.kind == P.kind.body_threat then n = n + 1 end
  end
  E.eq(n, 2, "repeats after 10 s")
end)

test("body_threat fires at most 8 a scan, nearest first", function()
  local w, b = W.with_body()
  for i = 1, 12 do
    w:spawn({ name = "small-biter", position = { x = b.position.x + i, y = b.position.y + 0.5 }, force = "enemy" })
  end
  w:tick(60)
  local d = {}
  for _, e in ipairs(E.ok(since(w, 0)).events) do
    if e.kind == P.kind.body_threat then d[#d + 1] = e.distance end
  end
  E.eq(#d, 8, "eight")
  E.truthy(d[1] <= d[8], "nearest first")
end)

test("body_damaged when an enemy hits the body, at most once per second", function()
  local w, b = W.with_body()
  local biter = w:spawn({ name = "small-biter", position = { x = b.position.x + 1, y = b.position.y }, force = "enemy" })
  w:damage(b, 7, "enemy", biter)
  w:tick(10)
  w:damage(b, 7, "enemy", biter)
  w:tick(P.damage_repeat_ticks)
  w:damage(b, 7, "enemy", biter)
  local hits = {}
  for _, e in ipairs(E.ok(since(w, 0)).events) do
    if e.kind == P.kind.body_damaged then hits[#hits + 1] = e end
  end
  E.eq(#hits, 2, "rate limited")
  E.eq(hits[1].damage, 7, "damage")
  E.eq(hits[1].health, 243, "health")
  E.eq(hits[1].cause, "small-biter", "cause")
end)

test("events pushed in Lua go straight into the ring with seq, tick and kind", function()
  local w = W.standard({ tick = 9 })
  local seq = events.push(P.kind.player_joined, { player = "x" })
  E.eq(seq, 1, "seq")
  E.eq(E.ok(since(w, 0)).events[1], { seq = 1, tick = 9, kind = P.kind.player_joined, player = "x" }, "event")
end)
