-- Assertions for the game mod's Lua tests: deep equality with a readable diff, and the
-- protocol's reply shapes.
local json = require("json")

local expect = {}

local function show(v)
  if type(v) == "table" then
    local ok, s = pcall(json.encode, v)
    if ok then return s end
  end
  return tostring(v)
end
expect.show = show

local function deep_equal(a, b)
  if a == b then return true end
  if type(a) ~= "table" or type(b) ~= "table" then return false end
  for k, v in pairs(a) do
    if not deep_equal(v, b[k]) then return false end
  end
  for k in pairs(b) do
    if a[k] == nil then return false end
  end
  return true
end
expect.deep_equal = deep_equal

--- Fails unless actual deep-equals expected.
function expect.eq(actual, expected, what)
  if not deep_equal(actual, expected) then
    error((what or "value") .. ": expected " .. show(expected) .. ", got " .. show(actual), 2)
  end
end

--- Fails unless v is truthy.
function expect.truthy(v, what)
  if not v then error((what or "value") .. " should hold, got " .. show(v), 2) end
end

--- Fails unless the reply is ok; returns its result.
function expect.ok(reply, what)
  if type(reply) ~= "table" or reply.ok ~= true then
    error((what or "reply") .. " should be ok, got " .. show(reply), 2)
  end
  if type(reply.map_id) ~= "string" or type(reply.tick) ~= "number" then
    error((what or "reply") .. " lacks map_id or tick: " .. show(reply), 2)
  end
  return reply.result
end

--- Fails unless the reply is an error with `code` (and, when given, these error fields).
function expect.err(reply, code, fields, what)
  if type(reply) ~= "table" or reply.ok ~= false or type(reply.error) ~= "table" then
    error((what or "reply") .. " should fail with " .. code .. ", got " .. show(reply), 2)
  end
  if reply.error.code ~= code then
    error((what or "reply") .. " should fail with " .. code .. ", got " .. show(reply), 2)
  end
  if type(reply.error.message) ~= "string" or reply.error.message == "" then
    error((what or "reply") .. " error has no message: " .. show(reply), 2)
  end
  for k, v in pairs(fields or {}) do
    if not deep_equal(reply.error[k], v) then
      error((what or "reply") .. " error." .. k .. ": expected " .. show(v) .. ", got " .. show(reply), 2)
    end
  end
  if type(reply.map_id) ~= "string" or type(reply.tick) ~= "number" then
    error((what or "reply") .. " lacks map_id or tick: " .. show(reply), 2)
  end
  return reply.error
end

return expect
