-- Small pure helpers shared by the mod's modules. No game state lives here.
local util = {}

--- True when v is a finite integral number within [min, max] (either bound may be nil).
function util.is_int(v, min, max)
  if type(v) ~= "number" or v ~= v or v % 1 ~= 0 then return false end
  if min and v < min then return false end
  if max and v > max then return false end
  return true
end

--- True when v is a finite number.
function util.is_num(v)
  return type(v) == "number" and v == v and v ~= math.huge and v ~= -math.huge
end

--- Number of UTF-8 code points in s (the spec's length limits count characters, not bytes).
function util.utf8_len(s)
  local _, continuation = s:gsub("[\128-\191]", "")
  return #s - continuation
end

--- True when t is a table with no positive-integer keys (a decoded JSON object, or empty).
function util.is_object(t)
  if type(t) ~= "table" then return false end
  return t[1] == nil
end

--- True when t is a decoded JSON array: a table whose keys are exactly 1..n.
function util.is_array(t)
  if type(t) ~= "table" then return false end
  local n = 0
  for k in pairs(t) do
    if type(k) ~= "number" then return false end
    n = n + 1
  end
  return n == #t
end

--- Deep copy of plain data (tables, strings, numbers, booleans).
function util.copy(v)
  if type(v) ~= "table" then return v end
  local out = {}
  for k, x in pairs(v) do out[k] = util.copy(x) end
  return out
end

--- Deep equality of plain data; key order never matters in Lua tables.
function util.deep_equal(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do
    if not util.deep_equal(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end

--- A position as the protocol writes it: {x, y}, from any game MapPosition.
function util.pos(p)
  if p == nil then return nil end
  return { x = p.x or p[1], y = p.y or p[2] }
end

--- Euclidean distance between two positions.
function util.dist(a, b)
  local dx, dy = (a.x or a[1]) - (b.x or b[1]), (a.y or a[2]) - (b.y or b[2])
  return math.sqrt(dx * dx + dy * dy)
end

--- Rounds to two decimals so replies stay short (positions, distances, health).
function util.round(n)
  if n == nil then return nil end
  return math.floor(n * 100 + 0.5) / 100
end

--- An inventory's contents as {item = count}, summed over qualities (Factorio 2.0 returns a list).
function util.contents(inv)
  local out = {}
  if inv == nil then return out end
  for _, stack in pairs(inv.get_contents()) do
    out[stack.name] = (out[stack.name] or 0) + stack.count
  end
  return out
end

return util
