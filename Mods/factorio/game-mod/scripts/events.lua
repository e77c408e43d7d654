-- The event ring: the newest RING_SIZE events of this map, keyed by seq, kept in storage so
-- a rollback (loading an older save) rolls the ring and seq back with it.
local state = require("scripts.state")
local util = require("scripts.util")

local events = {}

--- Appends one event of `kind` with (a deep copy of) its fields; returns its seq.
function events.push(kind, fields)
  local ring = storage.events
  local seq = ring.head + 1
  -- A copy: a table shared with a job record or the attack state would be two tables after a
  -- save and load, and a later change to one must not rewrite history anyway.
  local ev = util.copy(fields or {})
  ev.seq, ev.tick, ev.kind = seq, game.tick, kind
  ring.buf[seq] = ev
  ring.head = seq
  while ring.head - ring.oldest + 1 > state.RING_SIZE do
    ring.buf[ring.oldest] = nil
    ring.oldest = ring.oldest + 1
  end
  return seq
end

--- The head seq (0 before the first event) and the oldest seq still held (head + 1 when empty).
function events.bounds()
  local ring = storage.events
  return ring.head, ring.oldest
end

--- The events after `seq`, at most `limit`; or nil, "gap" when the next one was dropped.
function events.since(seq, limit)
  local ring = storage.events
  if seq < ring.oldest - 1 then return nil, "gap" end
  local out = {}
  local last = math.min(ring.head, seq + limit)
  for s = seq + 1, last do
    out[#out + 1] = ring.buf[s]
  end
  return out
end

return events
