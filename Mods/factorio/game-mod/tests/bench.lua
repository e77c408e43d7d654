-- Benchmarks of the mod's own Lua. The game parses requests in C++; here the fake's Lua JSON
-- parser is inside the request numbers, so they are upper bounds. Replies are not encoded.
--   lua5.2 tests/bench.lua
-- Prints CPU time per operation for the work the game runs on every tick and per request.
local here = arg[0]:match("^(.*)/tests/bench%.lua$") or "."
package.path = here .. "/?.lua;" .. here .. "/tests/?.lua;" .. here .. "/tests/fake/?.lua;" .. package.path
local clock = os.clock
local write = function(...) io.stdout:write(...) end
local fake = require("factorio")
fake.configure(here)
local W = require("world")

local function measure(label, n, setup, fn)
  local state = setup()
  local t0 = clock()
  for i = 1, n do fn(state, i) end
  local per = (clock() - t0) / n
  fake.restore_globals()
  write(string.format("%-52s %10.1f us\n", label, per * 1e6))
end

measure("events_since page of 200 (incl. Lua parse)", 2000, function()
  local w = W.standard()
  local events = require("scripts.events")
  for i = 1, 2048 do events.push("chat", { player = "alice", text = "line " .. i }) end
  return { rpc = require("scripts.rpc"), w = w }
end, function(s, i)
  local reply = s.rpc.handle('{"op":"events_since","args":{"seq":' .. (i % 1800) .. ',"limit":200}}')
  assert(#reply.result.events == 200)
end)

measure("status request (incl. Lua parse)", 5000, function()
  local w = W.with_body()
  return { rpc = require("scripts.rpc"), w = w }
end, function(s)
  assert(s.rpc.handle('{"op":"status"}').ok)
end)

measure("idempotent write: say (incl. Lua parse)", 5000, function()
  local w = W.with_body()
  return { rpc = require("scripts.rpc"), w = w }
end, function(s, i)
  assert(s.rpc.handle('{"op":"say","id":"b' .. i .. '","args":{"text":"hi"}}').ok)
end)

measure("push one event into a full ring", 50000, function()
  local w = W.standard()
  local events = require("scripts.events")
  for i = 1, 2048 do events.push("chat", { player = "alice", text = "line " .. i }) end
  return { events = events, w = w }
end, function(s)
  s.events.push("chat", { player = "alice", text = "x" })
end)

measure("on_tick, body idle next to the host", 20000, function()
  local w = W.with_body()
  return { watch = require("scripts.watch"), w = w }
end, function(s)
  s.watch.on_tick()
end)

measure("one game tick, body walking a job (incl. fake step)", 20000, function()
  local w = W.with_body()
  assert(require("scripts.rpc").handle('{"op":"jobs_enqueue","id":"j","args":{"jobs":[' ..
    '{"kind":"walk_to","args":{"pos":{"x":100000,"y":0}},"timeout_ticks":216000}]}}').ok)
  w:tick(2)
  return { w = w }
end, function(s)
  s.w:tick(1)
  assert(storage.jobs.running == 1)
end)
