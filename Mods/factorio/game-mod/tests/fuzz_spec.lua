-- Bad input gets a clear error, never a crash: random requests of every op, with argument names
-- the ops know and values of every JSON type, always get exactly one reply that is ok or names a
-- protocol error code, and never an internal error. Seeded, so a failure replays.
local P = require("protocol")
local E = require("expect")
local W = require("world")
local json = require("json")

local ARG_NAMES = { "seq", "limit", "sections", "area", "around", "name", "type", "unit_number", "text", "pos",
  "jobs", "job", "mode", "kind", "args", "count", "recipe", "item", "direction", "radius", "timeout_ticks",
  "left_top", "right_bottom", "x", "y" }
local WORDS = { "all", "follow", "stay", "walk_to", "mine", "craft", "place", "insert", "take", "north", "body",
  "iron-ore", "iron-gear-wheel", "wooden-chest", "coal", "", "x", "jobs" }

local function rand_value(depth)
  local r = math.random(1, depth > 2 and 6 or 9)
  if r == 1 then return math.random(-5, 300) end
  if r == 2 then return math.random() * 1000 - 500 end
  if r == 3 then return WORDS[math.random(#WORDS)] end
  if r == 4 then return math.random(2) == 1 end
  if r == 5 then return 1e300 end
  if r == 6 then return { x = math.random(-50, 50), y = math.random(-50, 50) } end
  if r == 7 then
    local t = {}
    for i = 1, math.random(0, 9) do t[i] = rand_value(depth + 1) end
    return t
  end
  local t = {}
  for _ = 1, math.random(0, 5) do t[ARG_NAMES[math.random(#ARG_NAMES)]] = rand_value(depth + 1) end
  return t
end

local KNOWN = {}
for _, c in pairs(P.code) do KNOWN[c] = true end

test("random requests of every op always get one reply with a protocol error code, never internal", function()
  math.randomseed(20261130)
  local w = W.with_body()
  local ops = {}
  for _, op in ipairs(P.reads) do ops[#ops + 1] = op end
  for _, op in ipairs(P.writes) do ops[#ops + 1] = op end
  local replies = 0
  for i = 1, 3000 do
    local req = { op = ops[math.random(#ops)], id = "f" .. i, args = rand_value(0) }
    if math.random(10) == 1 then req.args = rand_value(2) end
    local reply = w:rpc(json.encode(req))
    replies = replies + 1
    if reply.ok ~= true then
      E.truthy(KNOWN[reply.error.code] and reply.error.code ~= P.code.internal,
        "request " .. json.encode(req) .. " got " .. E.show(reply))
    end
    if i % 50 == 0 then w:tick(30) end
  end
  E.eq(replies, 3000, "one reply each")
end)

test("random text on the command line always gets one reply", function()
  math.randomseed(7)
  local w = W.standard()
  local alphabet = '{}[]":,0123456789.-eE truefalsnl\\u'
  for _ = 1, 2000 do
    local n = math.random(0, 40)
    local chars = {}
    for i = 1, n do
      local k = math.random(#alphabet)
      chars[i] = alphabet:sub(k, k)
    end
    local reply = w:rpc(table.concat(chars))
    E.truthy(reply.ok == false and reply.error.code == P.code.bad_request, "bad text answered bad_request")
  end
end)

-- Valid requests with one field knocked out, replaced or added, so the fuzz reaches past
-- validation into the ops and the running jobs.
local TEMPLATES = {
  { op = "events_since", args = { seq = 0, limit = 50 } },
  { op = "snapshot", args = { sections = { "body", "enemies", "power" } } },
  { op = "find", args = { name = "iron-ore", around = 30, limit = 5 } },
  { op = "find", args = { area = { left_top = { x = -10, y = -10 }, right_bottom = { x = 10, y = 10 } } } },
  { op = "inspect", args = { unit_number = 101 } },
  { op = "recipe", args = { name = "iron-gear-wheel" } },
  { op = "say", args = { text = "hello" } },
  { op = "ping", args = { pos = { x = 1, y = 2 }, text = "here" } },
  { op = "idle", args = { mode = "stay", pos = { x = 3, y = 3 } } },
  { op = "jobs_cancel", args = { job = "all" } },
  { op = "jobs_enqueue", args = { jobs = {
    { kind = "walk_to", args = { pos = { x = 8, y = 8 }, radius = 2 } },
    { kind = "mine", args = { pos = { x = 12.5, y = 0.5 }, name = "iron-ore", count = 2 } },
    { kind = "craft", args = { recipe = "iron-gear-wheel", count = 1 } },
    { kind = "place", args = { item = "wooden-chest", pos = { x = 4, y = -4 } } },
    { kind = "insert", args = { unit_number = 104, item = "coal", count = 5 } },
    { kind = "take", args = { unit_number = 104, item = "coal", count = 5 }, timeout_ticks = 600 },
  } } },
}

local function copy(v)
  if type(v) ~= "table" then return v end
  local t = {}
  for k, x in pairs(v) do t[k] = copy(x) end
  return t
end

-- Picks a random table inside `t` (t itself included) and changes one of its fields.
local function mutate(t)
  local tables = { t }
  local function walk(x)
    for _, v in pairs(x) do
      if type(v) == "table" then
        tables[#tables + 1] = v
        walk(v)
      end
    end
  end
  walk(t)
  local target = tables[math.random(#tables)]
  local keys = {}
  for k in pairs(target) do keys[#keys + 1] = k end
  local r = math.random(3)
  if r == 1 and #keys > 0 then
    target[keys[math.random(#keys)]] = nil
  elseif r == 2 and #keys > 0 then
    target[keys[math.random(#keys)]] = rand_value(1)
  else
    target[ARG_NAMES[math.random(#ARG_NAMES)]] = rand_value(1)
  end
end

test("valid requests with one field changed at random never crash an op or a running job", function()
  math.randomseed(424242)
  local w, b = W.with_body()
  b.insert({ name = "iron-plate", count = 200 })
  b.insert({ name = "wooden-chest", count = 20 })
  b.insert({ name = "coal", count = 50 })
  local outcomes = {}
  for i = 1, 1500 do
    local req = copy(TEMPLATES[math.random(#TEMPLATES)])
    req.id = "m" .. i
    if math.random(4) > 1 then mutate(req.args) end
    local reply = w:rpc(json.encode(req))
    local key = reply.ok and "ok" or reply.error.code
    outcomes[key] = (outcomes[key] or 0) + 1
    E.truthy(KNOWN[key] or key == "ok", "unknown outcome " .. E.show(reply))
    E.truthy(key ~= P.code.internal, "request " .. json.encode(req) .. " got " .. E.show(reply))
    if i % 10 == 0 then w:tick(60) end
  end
  E.truthy((outcomes.ok or 0) > 500, "most requests reached their op: " .. E.show(outcomes))
  E.truthy((outcomes.bad_request or 0) > 100, "and many were refused: " .. E.show(outcomes))
  w:tick(3000)
end)
