-- The request pipeline: parse, op, session, id, idempotency, args, run (docs/coop-rpc.md).
local P = require("protocol")
local E = require("expect")
local W = require("world")

test("a request that is not JSON answers bad_request naming the request", function()
  local w = W.standard()
  for _, text in ipairs({ "", "not json", "{\"op\":", "[1,2]", "42", "\"status\"" }) do
    local err = E.err(w:rpc(text), P.code.bad_request, { field = "request" }, text)
    E.truthy(err.message:find("JSON object"), "message names the problem")
  end
end)

test("a missing or unknown op answers bad_request on op", function()
  local w = W.standard()
  E.err(w:rpc({ args = {} }), P.code.bad_request, { field = "op" })
  E.err(w:rpc({ op = "dance" }), P.code.bad_request, { field = "op" })
  E.err(w:rpc({ op = 7 }), P.code.bad_request, { field = "op" })
end)

test("every reply carries the map id and the current tick", function()
  local w = W.standard({ tick = 500 })
  local r = w:rpc({ op = "status" })
  E.ok(r)
  E.eq(r.map_id, storage.map_id, "map_id")
  E.eq(r.tick, 500, "tick")
  w:tick(3)
  local bad = w:rpc({ op = "nope" })
  E.eq(bad.tick, 503, "tick on an error")
  E.eq(bad.map_id, storage.map_id, "map_id on an error")
end)

test("a session other than the map id answers stale_session and runs nothing", function()
  local w = W.standard()
  local before = #w.printed
  local err = E.err(w:rpc({ op = "say", id = W.id(), session = "other-map", args = { text = "hi" } }),
    P.code.stale_session, { map_id = storage.map_id })
  E.truthy(err.message:find(storage.map_id, 1, true), "message names the current map")
  E.eq(#w.printed, before, "nothing was said")
  E.err(w:rpc({ op = "events_since", session = "other-map", args = { seq = 0 } }), P.code.stale_session)
end)

test("status never checks the session", function()
  local w = W.standard()
  E.ok(w:rpc({ op = "status", session = "other-map" }))
end)

test("the matching session is accepted", function()
  local w = W.standard()
  E.ok(w:rpc({ op = "events_since", session = storage.map_id, args = { seq = 0 } }))
end)

test("the session is checked before the id and the args", function()
  local w = W.standard()
  E.err(w:rpc({ op = "say", session = "x", args = { text = 5 } }), P.code.stale_session)
end)

test("a write without a well-formed id answers bad_request on id", function()
  local w = W.standard()
  local cases = { {}, { id = "" }, { id = 12 }, { id = "has space" }, { id = string.rep("a", P.id_max + 1) },
    { id = "bad/slash" } }
  for _, c in ipairs(cases) do
    c.op, c.args = "say", { text = "hi" }
    E.err(w:rpc(c), P.code.bad_request, { field = "id" }, E.show(c))
  end
  E.ok(w:rpc({ op = "say", id = string.rep("a", P.id_max), args = { text = "hi" } }))
  E.ok(w:rpc({ op = "say", id = "Az09_.:-", args = { text = "hi" } }))
end)

test("reads ignore the id", function()
  local w = W.standard()
  E.ok(w:rpc({ op = "status", id = "not valid at all!" }))
end)

test("args that are not an object answer bad_request on args", function()
  local w = W.standard()
  E.err(w:rpc({ op = "status", args = { 1, 2 } }), P.code.bad_request, { field = "args" })
  E.err(w:rpc({ op = "say", id = W.id(), args = "hi" }), P.code.bad_request, { field = "args" })
end)

test("unknown top-level and args fields are ignored", function()
  local w = W.standard()
  E.ok(w:rpc({ op = "say", id = W.id(), extra = true, args = { text = "hi", mood = "happy" } }))
  E.ok(w:rpc({ op = "status", whatever = { 1 } }))
end)

test("a write replays its stored result for the same id and args without running again", function()
  local w = W.standard()
  local id = W.id()
  local first = w:rpc({ op = "say", id = id, args = { text = "on my way" } })
  E.ok(first)
  E.eq(first.replayed, nil, "first reply is not a replay")
  E.eq(#w.printed, 1, "said once")
  w:tick(10)
  local again = w:rpc({ op = "say", id = id, args = { text = "on my way" } })
  E.ok(again)
  E.eq(again.replayed, true, "replayed")
  E.eq(again.result, first.result, "same result")
  E.eq(again.tick, first.tick + 10, "the current tick")
  E.eq(#w.printed, 1, "not said twice")
end)

test("a replay compares args deeply, whatever their key order", function()
  local w = W.standard()
  local id = W.id()
  local first = w:rpc('{"op":"ping","id":"' .. id .. '","args":{"pos":{"x":1,"y":2},"text":"here"}}')
  E.ok(first)
  local again = w:rpc('{"args":{"text":"here","pos":{"y":2,"x":1}},"id":"' .. id .. '","op":"ping"}')
  E.eq(again.replayed, true, "replayed")
  E.eq(#w.force_prints, 1, "pinged once")
end)

test("the same id with other args or another op answers id_conflict and runs nothing", function()
  local w = W.standard()
  local id = "k2v9-7"
  E.ok(w:rpc({ op = "say", id = id, args = { text = "on my way" } }))
  local err = E.err(w:rpc({ op = "say", id = id, args = { text = "on my way!" } }), P.code.id_conflict, { id = id })
  E.truthy(err.message:find(id, 1, true), "message names the id")
  E.err(w:rpc({ op = "stop", id = id }), P.code.id_conflict, { id = id })
  E.eq(#w.printed, 1, "said once")
end)

test("a write that failed is not stored, so its id can be retried", function()
  local w = W.standard()
  local id = W.id()
  E.err(w:rpc({ op = "say", id = id, args = {} }), P.code.bad_request, { field = "args.text" })
  local ok = w:rpc({ op = "say", id = id, args = { text = "second try" } })
  E.ok(ok)
  E.eq(ok.replayed, nil, "ran, not replayed")
end)

test("a stale write is neither run nor stored", function()
  local w = W.standard()
  local id = W.id()
  E.err(w:rpc({ op = "say", id = id, session = "old", args = { text = "a" } }), P.code.stale_session)
  local r = w:rpc({ op = "say", id = id, args = { text = "b" } })
  E.ok(r)
  E.eq(r.replayed, nil, "ran fresh")
end)

test("absent args and empty args are the same write", function()
  local w = W.with_body()
  local id = W.id()
  E.ok(w:rpc({ op = "stop", id = id }))
  E.eq(w:rpc({ op = "stop", id = id, args = {} }).replayed, true, "replayed")
end)

test("the newest 512 write ids are kept and older ones dropped first", function()
  local w = W.standard()
  for i = 1, P.writes_kept + 3 do
    E.ok(w:rpc({ op = "say", id = "w" .. i, args = { text = "n" .. i } }))
  end
  -- The first three were dropped: the same id with other args now runs as new.
  E.eq(w:rpc({ op = "say", id = "w4", args = { text = "n4" } }).replayed, true, "w4 kept")
  E.eq(w:rpc({ op = "say", id = "w1", args = { text = "other" } }).replayed, nil, "w1 forgotten")
  E.err(w:rpc({ op = "say", id = "w" .. (P.writes_kept + 3), args = { text = "x" } }), P.code.id_conflict)
end)

test("a Lua error inside an op answers internal and the game goes on", function()
  local w = W.standard()
  local reads = require("scripts.reads")
  reads.status = function() error("boom") end
  require("scripts.rpc").READS.status = reads.status
  local err = E.err(w:rpc({ op = "status" }), P.code.internal)
  E.truthy(err.message:find("boom"), "message carries the Lua error")
  E.eq(#w:error_logs(), 1, "the error was logged")
  w.logs = {}
  E.ok(w:rpc({ op = "jobs" }))
end)

test("a player typing /coop-rpc gets a pointer and no RCON output", function()
  local w = W.standard()
  w:command("coop-rpc", "alice", '{"op":"status"}')
  E.eq(#w.rcon_out, 0, "nothing printed to RCON")
  E.eq(#w.player_prints, 1, "the player was told")
end)

test("idempotency is checked before the args: a known id with bad args is an id_conflict", function()
  local w = W.standard()
  E.ok(w:rpc({ op = "say", id = "k1", args = { text = "fine" } }))
  E.err(w:rpc({ op = "say", id = "k1", args = { text = 5 } }), P.code.id_conflict, { id = "k1" })
end)

test("a replay answers the stored result even when running it now would fail", function()
  local w, b = W.with_body()
  E.ok(w:rpc({ op = "stop", id = "s1" }))
  w:kill(b)
  E.err(w:rpc({ op = "stop", id = "s2" }), P.code.unavailable, { what = P.what.body })
  local again = w:rpc({ op = "stop", id = "s1" })
  E.eq(again.replayed, true, "replayed")
  E.eq(again.result, { stopped = true }, "stored result")
end)

test("the op is checked before the session, the id before the args", function()
  local w = W.standard()
  E.err(w:rpc({ op = "dance", session = "other" }), P.code.bad_request, { field = "op" })
  E.err(w:rpc({ op = "say", args = { text = 5 } }), P.code.bad_request, { field = "id" })
end)
