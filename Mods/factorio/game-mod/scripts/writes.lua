-- The write ops: say, ping, jobs_enqueue, jobs_cancel, idle, stop. Each validates its args and
-- checks what it needs before changing anything, so a failed write changed nothing.
local state = require("scripts.state")
local events = require("scripts.events")
local check = require("scripts.check")
local body = require("scripts.body")
local jobs = require("scripts.jobs")
local util = require("scripts.util")

local writes = {}

writes.SAY_MAX = 500
writes.PING_MAX = 200
writes.CHAT_COLOR = { r = 0.55, g = 0.8, b = 1 }

-- One chat line: control characters (newlines, tabs) become spaces.
local function one_line(text)
  return (text:gsub("%c", " "))
end

local function coord(n)
  if n % 1 == 0 then return string.format("%d", n) end
  return string.format("%.2f", n)
end

local function print_settings()
  -- never: the game would otherwise drop a line repeated within 60 ticks.
  return { color = writes.CHAT_COLOR, skip = defines.print_skip.never }
end

--- say: one chat line under the body's name.
function writes.say(args)
  local text = check.str(args.text, "args.text", writes.SAY_MAX)
  game.print("[" .. state.body_name() .. "] " .. one_line(text), print_settings())
  return {}
end

--- ping: a GPS tag at pos with a label, printed to the host's force.
function writes.ping(args)
  local pos = check.pos(args.pos, "args.pos")
  local text = check.str(args.text, "args.text", writes.PING_MAX)
  local host = state.host()
  local _, surface = state.host_place(host)
  local b = state.body()
  surface = surface or (b and b.surface) or game.surfaces["nauvis"] or game.surfaces[1]
  local force = (host and host.force) or game.forces["player"]
  local line = string.format("[%s] %s [gps=%s,%s,%s]", state.body_name(), one_line(text), coord(pos.x), coord(pos.y),
    surface.name)
  force.print(line, print_settings())
  return {}
end

--- jobs_enqueue: validates the whole batch, then queues it in order and lifts the latch.
function writes.jobs_enqueue(args)
  local specs = jobs.validate_batch(args.jobs)
  return { ids = jobs.enqueue(specs) }
end

--- jobs_cancel: one queued or running job by id, or "all"; fires no event.
function writes.jobs_cancel(args)
  local which = args.job
  if which ~= "all" and not util.is_int(which, 1) then
    check.bad("args.job", 'must be a job id (integer from 1) or "all"')
  end
  if which ~= "all" and not jobs.is_pending(which) then
    check.fail("not_found", "no queued or running job " .. which, { what = "job" })
  end
  return { cancelled = jobs.cancel(which) }
end

--- idle: follow the host, or stay (at pos, else where the body stands); lifts the latch.
function writes.idle(args)
  local mode = check.enum(args.mode, "args.mode", { "follow", "stay" })
  local pos = nil
  if mode == "stay" then
    pos = check.pos(args.pos, "args.pos", true)
    if pos == nil then
      local b = state.body()
      pos = b and util.pos(b.position) or nil
    end
  else
    local host = state.host()
    if host == nil then check.fail("unavailable", "there is no host player to follow", { what = "host" }) end
  end
  body.set_idle(mode, pos)
  return body.idle_view()
end

--- Stops the body and latches it, firing stopped with `by` (the stop op and /coop-stop).
function writes.do_stop(by)
  jobs.cancel_running()
  body.halt()
  storage.stopped = true
  events.push("stopped", { by = by })
end

--- stop: halt walking, mining and crafting and set the latch; needs the body.
function writes.stop()
  if state.body() == nil then check.fail("unavailable", "the body is not in the game", { what = "body" }) end
  writes.do_stop("agent")
  return { stopped = true }
end

return writes
