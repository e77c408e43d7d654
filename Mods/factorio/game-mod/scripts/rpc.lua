-- /coop-rpc: one JSON request in, one JSON reply out. The check order is fixed by the protocol
-- (docs/coop-rpc.md): parse, op, session, id, idempotency, args, run.
local state = require("scripts.state")
local reads = require("scripts.reads")
local writes = require("scripts.writes")
local util = require("scripts.util")

local rpc = {}

rpc.READS = {
  status = reads.status,
  events_since = reads.events_since,
  snapshot = reads.snapshot,
  find = reads.find,
  inspect = reads.inspect,
  recipe = reads.recipe,
  jobs = reads.jobs,
}
rpc.WRITES = {
  say = writes.say,
  ping = writes.ping,
  jobs_enqueue = writes.jobs_enqueue,
  jobs_cancel = writes.jobs_cancel,
  idle = writes.idle,
  stop = writes.stop,
}

local ID_MAX = 64

local function reply_error(code, message, extra)
  local err = { code = code, message = message }
  if extra then
    for k, v in pairs(extra) do err[k] = v end
  end
  return { ok = false, map_id = storage.map_id, tick = game.tick, error = err }
end

local function bad(field, message)
  return reply_error("bad_request", message, { field = field })
end

-- Stores an ok write's result under its id, dropping the oldest beyond WRITES_KEPT.
local function remember(id, op, args, result)
  local w = storage.writes
  w.by_id[id] = { op = op, args = util.copy(args), result = result }
  w.last = w.last + 1
  w.order[w.last] = id
  while w.last - w.first + 1 > state.WRITES_KEPT do
    w.by_id[w.order[w.first]] = nil
    w.order[w.first] = nil
    w.first = w.first + 1
  end
end

--- Answers one request (the command's parameter text) with the reply table to print.
function rpc.handle(text)
  local req = type(text) == "string" and helpers.json_to_table(text) or nil
  if type(req) ~= "table" or not util.is_object(req) then
    return bad("request", "the request must be one JSON object")
  end
  local op = req.op
  if op == nil then return bad("op", "op is required") end
  local run = type(op) == "string" and (rpc.READS[op] or rpc.WRITES[op]) or nil
  if run == nil then return bad("op", "op is not a known op: " .. tostring(op)) end
  local is_write = rpc.WRITES[op] ~= nil

  if req.session ~= nil then
    if type(req.session) ~= "string" then return bad("session", "session must be a string") end
    if op ~= "status" and req.session ~= storage.map_id then
      return reply_error("stale_session", "the game is on map " .. storage.map_id .. ", not " .. req.session,
        { map_id = storage.map_id })
    end
  end

  local id = req.id
  local args = req.args
  if is_write then
    if id == nil then return bad("id", "id is required on a write") end
    if type(id) ~= "string" or #id < 1 or #id > ID_MAX or not id:match("^[A-Za-z0-9_%.:%-]+$") then
      return bad("id", "id must be 1 to " .. ID_MAX .. " characters of A-Z a-z 0-9 _ . : -")
    end
    local stored = storage.writes.by_id[id]
    if stored ~= nil then
      if stored.op == op and util.deep_equal(stored.args, args == nil and {} or args) then
        return { ok = true, replayed = true, map_id = storage.map_id, tick = game.tick, result = stored.result }
      end
      return reply_error("id_conflict", "id " .. id .. " already ran " .. stored.op .. " with different args",
        { id = id })
    end
  end

  if args ~= nil and not util.is_object(args) then return bad("args", "args must be an object") end
  local ok, result = pcall(run, args or {})
  if not ok then
    if type(result) == "table" and result.rpc_error then
      local extra = {}
      for k, v in pairs(result) do
        if k ~= "rpc_error" and k ~= "code" and k ~= "message" then extra[k] = v end
      end
      return reply_error(result.code, result.message, extra)
    end
    log("coop-agent: internal error in " .. op .. ": " .. tostring(result))
    return reply_error("internal", "the game mod failed on " .. op .. ": " .. tostring(result))
  end
  if is_write then remember(id, op, args == nil and {} or args, result) end
  return { ok = true, map_id = storage.map_id, tick = game.tick, result = result }
end

--- The command handler's body: the reply as JSON text (never raises).
function rpc.answer(text)
  local ok, out = pcall(function() return helpers.table_to_json(rpc.handle(text)) end)
  if ok then return out end
  log("coop-agent: could not answer: " .. tostring(out))
  return helpers.table_to_json({
    ok = false,
    map_id = storage and storage.map_id,
    tick = game.tick,
    error = { code = "internal", message = "the game mod could not answer: " .. tostring(out) },
  })
end

return rpc
