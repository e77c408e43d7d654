-- The game mod's test runner (Lua 5.2, like the game). Usage:
--   lua5.2 tests/run.lua [--list] <spec.lua>...
-- Each spec file registers cases with test(name, fn). Every case runs on its own fresh fake
-- world; a case fails when it raises, or when the mod logged an error it caught (the mod never
-- lets an error reach the game, so a logged one is a bug unless the case expects it).
-- Output: one line per case, "@@case " followed by a JSON object {file, name, ok, error?},
-- then the closing line "N passed, N failed".
local here = arg[0]:match("^(.*)/tests/run%.lua$") or "."
package.path = here .. "/?.lua;" .. here .. "/tests/?.lua;" .. here .. "/tests/fake/?.lua;" .. package.path

local json = require("json")
local fake = require("factorio")
fake.configure(here)

local list_only = false
local files = {}
for _, a in ipairs(arg) do
  if a == "--list" then list_only = true else files[#files + 1] = a end
end

local stdout = io.stdout
local exit = os.exit

local function report(t)
  stdout:write("@@case ", json.encode(t), "\n")
  stdout:flush()
end

local passed, failed = 0, 0
for _, file in ipairs(files) do
  local cases = {}
  _G.test = function(name, fn, opts)
    cases[#cases + 1] = { name = name, fn = fn, opts = opts or {} }
  end
  fake.restore_globals()
  local chunk, err = loadfile(file)
  if not chunk then
    report({ file = file, name = "(load)", ok = false, error = err })
    failed = failed + 1
  else
    local ok, lerr = pcall(chunk)
    if not ok then
      report({ file = file, name = "(load)", ok = false, error = tostring(lerr) })
      failed = failed + 1
    end
  end
  for _, c in ipairs(cases) do
    if list_only then
      report({ file = file, name = c.name })
    else
      fake.current = nil
      local ok, cerr = xpcall(c.fn, debug.traceback)
      if ok and fake.current and not c.opts.allow_error_logs then
        local logged = fake.current:error_logs()
        if #logged > 0 then
          ok, cerr = false, "the mod logged an error it caught:\n" .. table.concat(logged, "\n")
        end
      end
      fake.restore_globals()
      if ok then passed = passed + 1 else failed = failed + 1 end
      report({ file = file, name = c.name, ok = ok, error = (not ok) and tostring(cerr) or nil })
    end
  end
end
if not list_only then
  stdout:write(passed, " passed, ", failed, " failed\n")
  exit(failed == 0 and 0 or 1)
end
