-- Argument checks. Each check either returns the (defaulted) value or raises a protocol error
-- that the dispatcher turns into a `bad_request` reply naming the field at fault.
local util = require("scripts.util")

local check = {}

--- Raises a protocol error (caught by rpc.lua); `extra` fields go into the reply's error object.
function check.fail(code, message, extra)
  local err = { rpc_error = true, code = code, message = message }
  if extra then
    for k, v in pairs(extra) do err[k] = v end
  end
  error(err, 0)
end

--- Raises bad_request for `field`.
function check.bad(field, message)
  check.fail("bad_request", field .. " " .. message, { field = field })
end

--- A required or defaulted integer within [min, max].
function check.int(v, field, min, max, default)
  if v == nil then
    if default ~= nil then return default end
    check.bad(field, "is required")
  end
  if not util.is_int(v, min, max) then
    local range = ""
    if min and max then
      range = " from " .. min .. " to " .. max
    elseif min then
      range = " of at least " .. min
    end
    check.bad(field, "must be an integer" .. range)
  end
  return v
end

--- A required or defaulted number within [min, max].
function check.num(v, field, min, max, default)
  if v == nil then
    if default ~= nil then return default end
    check.bad(field, "is required")
  end
  if not util.is_num(v) or (min and v < min) or (max and v > max) then
    if min and max then check.bad(field, "must be a number from " .. min .. " to " .. max) end
    check.bad(field, "must be a number")
  end
  return v
end

--- A required (or optional when `optional`) string of 1 to `max` characters.
function check.str(v, field, max, optional)
  if v == nil then
    if optional then return nil end
    check.bad(field, "is required")
  end
  if type(v) ~= "string" then check.bad(field, "must be a string") end
  local n = util.utf8_len(v)
  if n < 1 then check.bad(field, "must not be empty") end
  if max and n > max then check.bad(field, "must be at most " .. max .. " characters") end
  return v
end

--- One of the listed words; `default` when absent (required when default is nil).
function check.enum(v, field, words, default)
  if v == nil then
    if default ~= nil then return default end
    check.bad(field, "is required")
  end
  for _, w in ipairs(words) do
    if v == w then return v end
  end
  check.bad(field, "must be one of " .. table.concat(words, ", "))
end

-- The game's maps end a million tiles from the centre.
check.MAP_LIMIT = 1000000

--- A position {x, y} of numbers on the map, returned as a fresh table.
function check.pos(v, field, optional)
  if v == nil then
    if optional then return nil end
    check.bad(field, "is required")
  end
  if not util.is_object(v) then check.bad(field, "must be an object {x, y}") end
  for _, axis in ipairs({ "x", "y" }) do
    local n = v[axis]
    if not util.is_num(n) then check.bad(field .. "." .. axis, "must be a number") end
    if n < -check.MAP_LIMIT or n > check.MAP_LIMIT then
      check.bad(field .. "." .. axis, "must be on the map (-" .. check.MAP_LIMIT .. " to " .. check.MAP_LIMIT .. ")")
    end
  end
  return { x = v.x, y = v.y }
end

--- A JSON object (absent means {}).
function check.object(v, field)
  if v == nil then return {} end
  if not util.is_object(v) then check.bad(field, "must be an object") end
  return v
end

--- A JSON array (absent allowed when `optional`, then nil).
function check.array(v, field, optional)
  if v == nil then
    if optional then return nil end
    check.bad(field, "is required")
  end
  if not util.is_array(v) then check.bad(field, "must be an array") end
  return v
end

return check
