-- A strict JSON codec standing in for Factorio's helpers.table_to_json / helpers.json_to_table.
-- Behaviour mirrored from the game: decoding invalid text returns nil (no error), JSON null
-- becomes nil (the key is absent), arrays become 1-based sequences; encoding writes a table
-- whose keys are exactly 1..n as an array, an empty table as [] and anything else as an object.
-- Object keys are written sorted so test output is stable (the game's order is its own).
local json = {}

local escapes = {
  ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t",
}

local function encode_string(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    return escapes[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function is_array(t)
  local n = 0
  for k in pairs(t) do
    if type(k) ~= "number" or k <= 0 or k % 1 ~= 0 then return false end
    n = n + 1
  end
  for i = 1, n do
    if t[i] == nil then return false end
  end
  return true
end

local encode_value

local function encode_table(t, seen)
  if seen[t] then error("table_to_json: cycle", 0) end
  seen[t] = true
  local out = {}
  if is_array(t) then
    for i = 1, #t do out[i] = encode_value(t[i], seen) end
    seen[t] = nil
    return "[" .. table.concat(out, ",") .. "]"
  end
  local keys = {}
  for k in pairs(t) do
    local tk = type(k)
    if tk ~= "string" and tk ~= "number" then error("table_to_json: bad key type " .. tk, 0) end
    keys[#keys + 1] = k
  end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  for i, k in ipairs(keys) do
    out[i] = encode_string(tostring(k)) .. ":" .. encode_value(t[k], seen)
  end
  seen[t] = nil
  return "{" .. table.concat(out, ",") .. "}"
end

encode_value = function(v, seen)
  local tv = type(v)
  if tv == "string" then return encode_string(v) end
  if tv == "boolean" then return tostring(v) end
  if tv == "nil" then return "null" end
  if tv == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    if v % 1 == 0 and math.abs(v) < 2 ^ 53 then return string.format("%d", v) end
    return string.format("%.17g", v)
  end
  if tv == "table" then return encode_table(v, seen) end
  error("table_to_json: cannot encode " .. tv, 0)
end

--- Encodes a Lua value as JSON text; errors on functions and cycles, like the game.
function json.encode(v)
  return encode_value(v, {})
end

-- Decoder: a small recursive-descent parser over the whole text.
local function decoder(text)
  local pos = 1
  local function fail() error({ json_error = true }, 0) end
  local function ws()
    pos = text:find("[^ \t\r\n]", pos) or (#text + 1)
  end
  local value
  local function str()
    pos = pos + 1
    local parts = {}
    while true do
      local c = text:sub(pos, pos)
      if c == "" then fail() end
      if c == '"' then pos = pos + 1; break end
      if c == "\\" then
        local e = text:sub(pos + 1, pos + 1)
        local map = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }
        if map[e] then
          parts[#parts + 1] = map[e]; pos = pos + 2
        elseif e == "u" then
          local hex = text:sub(pos + 2, pos + 5)
          if not hex:match("^%x%x%x%x$") then fail() end
          local cp = tonumber(hex, 16)
          pos = pos + 6
          if cp >= 0xD800 and cp <= 0xDBFF and text:sub(pos, pos + 1) == "\\u" then
            local lo = tonumber(text:sub(pos + 2, pos + 5), 16)
            if lo and lo >= 0xDC00 and lo <= 0xDFFF then
              cp = 0x10000 + (cp - 0xD800) * 0x400 + (lo - 0xDC00)
              pos = pos + 6
            end
          end
          if cp < 0x80 then
            parts[#parts + 1] = string.char(cp)
          elseif cp < 0x800 then
            parts[#parts + 1] = string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64)
          elseif cp < 0x10000 then
            parts[#parts + 1] = string.char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
          else
            parts[#parts + 1] = string.char(0xF0 + math.floor(cp / 262144), 0x80 + math.floor(cp / 4096) % 64,
              0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
          end
        else
          fail()
        end
      elseif c:byte() < 32 then
        fail()
      else
        local j = text:find('["\\%c]', pos) or (#text + 1)
        parts[#parts + 1] = text:sub(pos, j - 1)
        pos = j
      end
    end
    return table.concat(parts)
  end
  value = function()
    ws()
    local c = text:sub(pos, pos)
    if c == "{" then
      pos = pos + 1
      local t = {}
      ws()
      if text:sub(pos, pos) == "}" then pos = pos + 1; return t end
      while true do
        ws()
        if text:sub(pos, pos) ~= '"' then fail() end
        local k = str()
        ws()
        if text:sub(pos, pos) ~= ":" then fail() end
        pos = pos + 1
        t[k] = value()
        ws()
        local d = text:sub(pos, pos)
        pos = pos + 1
        if d == "}" then return t end
        if d ~= "," then fail() end
      end
    elseif c == "[" then
      pos = pos + 1
      local t, n = {}, 0
      ws()
      if text:sub(pos, pos) == "]" then pos = pos + 1; return t end
      while true do
        n = n + 1
        t[n] = value()
        ws()
        local d = text:sub(pos, pos)
        pos = pos + 1
        if d == "]" then return t end
        if d ~= "," then fail() end
      end
    elseif c == '"' then
      return str()
    elseif text:sub(pos, pos + 3) == "true" then
      pos = pos + 4; return true
    elseif text:sub(pos, pos + 4) == "false" then
      pos = pos + 5; return false
    elseif text:sub(pos, pos + 3) == "null" then
      pos = pos + 4; return nil
    else
      local num = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
      if not num or num == "" or num == "-" then fail() end
      local v = tonumber(num)
      if v == nil then fail() end
      pos = pos + #num
      return v
    end
  end
  return function()
    local v = value()
    ws()
    if pos <= #text then fail() end
    return v
  end
end

--- Decodes JSON text; returns nil when the text is not valid JSON, as the game does.
function json.decode(text)
  if type(text) ~= "string" then return nil end
  local ok, v = pcall(decoder(text))
  if not ok then
    if type(v) == "table" and v.json_error then return nil end
    error(v, 0)
  end
  return v
end

return json
