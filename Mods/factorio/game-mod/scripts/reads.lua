-- The read ops: status, events_since, snapshot, find, inspect, recipe, jobs. Each takes the
-- request's args table, validates it (raising bad_request) and returns the reply's result.
local state = require("scripts.state")
local events = require("scripts.events")
local check = require("scripts.check")
local body = require("scripts.body")
local jobs = require("scripts.jobs")
local util = require("scripts.util")

local reads = {}

reads.SECTIONS = { "body", "host", "players", "jobs", "research", "production", "power", "enemies" }
reads.FIND_RADIUS = 256
reads.ENEMY_RADIUS = 128
reads.POWER_RADIUS = 64
reads.AREA_MAX = 1024
local ENEMY_TYPES = { "unit-spawner", "unit", "turret" }

local function reverse(t)
  local out = {}
  for k, v in pairs(t) do out[v] = k end
  return out
end

local function host_view(p)
  local pos = state.host_place(p)
  return { name = p and p.name or nil, state = state.host_state(p), position = util.pos(pos) }
end

local function body_view()
  local b = state.body()
  return { name = state.body_name(), state = state.body_state(), position = b and util.pos(b.position) or nil }
end

--- status: who and where everyone is, the map id and the event head.
function reads.status()
  local head, oldest = events.bounds()
  local q = jobs.summary()
  return {
    version = state.version(),
    map_id = storage.map_id,
    seq = head,
    oldest_seq = oldest,
    tick = game.tick,
    host = host_view(state.host()),
    body = body_view(),
    idle = body.idle_view(),
    stopped = storage.stopped,
    queue = { length = q.length, running = q.running },
  }
end

--- events_since: a contiguous page of events after args.seq, or history_gap.
function reads.events_since(args)
  local seq = check.int(args.seq, "args.seq", 0)
  local limit = check.int(args.limit, "args.limit", 1, 200, 200)
  local list = events.since(seq, limit)
  local head, oldest = events.bounds()
  if list == nil then
    check.fail("history_gap", "events after " .. seq .. " were dropped; the oldest held is " .. oldest,
      { oldest_seq = oldest, head_seq = head })
  end
  return { events = list, head_seq = head, oldest_seq = oldest, map_id = storage.map_id }
end

local function main_inventory(control)
  local inv = control.get_main_inventory and control.get_main_inventory()
  return util.contents(inv)
end

-- Where area-less searches centre: the host's physical position, else the body's.
local function centre()
  local host = state.host()
  if host and host.connected then
    local pos, surface = state.host_place(host)
    if surface then return surface, pos, host.force end
  end
  local b = state.body()
  if b then return b.surface, b.position, b.force end
  return nil
end

-- One builder per snapshot section; each returns that section's table (shapes in PROTOCOL-NOTES.md).
local sections = {}

function sections.body()
  local b = state.body()
  local out = body_view()
  out.idle = body.idle_view()
  out.stopped = storage.stopped
  if b then
    out.health = b.health
    out.inventory = main_inventory(b)
  end
  return out
end

function sections.host()
  local p = state.host()
  local out = host_view(p)
  if p and p.character then
    out.health = p.character.health
    out.inventory = main_inventory(p.character)
  end
  return out
end

function sections.players()
  local out = {}
  for _, p in pairs(game.players) do
    local pos = state.host_place(p)
    out[#out + 1] = { name = p.name, position = util.pos(pos), online = p.connected }
  end
  return { players = out }
end

function sections.jobs()
  return jobs.summary()
end

function sections.research()
  local host = state.host()
  local force = host and host.force or game.forces["player"]
  local researched = 0
  for _, t in pairs(force.technologies) do
    if t.researched then researched = researched + 1 end
  end
  local current = force.current_research
  return {
    current = current and current.name or nil,
    progress = current and force.research_progress or nil,
    researched = researched,
  }
end

function sections.production()
  local surface, _, force = centre()
  if surface == nil then return { items = {} } end
  local stats = force.get_item_production_statistics(surface)
  local names = {}
  for name in pairs(stats.input_counts) do names[name] = true end
  for name in pairs(stats.output_counts) do names[name] = true end
  local items = {}
  local window = defines.flow_precision_index.ten_minutes
  for name in pairs(names) do
    local produced = stats.get_flow_count({ name = name, category = "input", precision_index = window, count = true })
    local consumed = stats.get_flow_count({ name = name, category = "output", precision_index = window, count = true })
    if produced > 0 or consumed > 0 then items[name] = { produced = produced, consumed = consumed } end
  end
  return { items = items, window = "10m" }
end

-- Sum of one side of an electric network's flow over the last 5 s, in watts. Electric
-- statistics are per tick (joules per tick), and their sides are the GUI's: "input" is the
-- consumption on the left, "output" the production.
local function power_side(stats, category)
  local counts = category == "input" and stats.input_counts or stats.output_counts
  local total = 0
  for name in pairs(counts) do
    total = total + stats.get_flow_count({
      name = name,
      category = category,
      precision_index = defines.flow_precision_index.five_seconds,
    })
  end
  return total * 60
end

function sections.power()
  local surface, pos = centre()
  if surface == nil then return { networks = {} } end
  local seen, networks = {}, {}
  local poles = surface.find_entities_filtered({ type = "electric-pole", position = pos, radius = reads.POWER_RADIUS })
  for _, pole in pairs(poles) do
    local id = pole.electric_network_id
    if id and not seen[id] then
      seen[id] = true
      local stats = pole.electric_network_statistics
      networks[#networks + 1] = {
        id = id,
        production_w = power_side(stats, "output"),
        consumption_w = power_side(stats, "input"),
      }
    end
  end
  return { networks = networks }
end

function sections.enemies()
  local surface, pos, force = centre()
  local out = { spawners = 0, units = 0, worms = 0, radius = reads.ENEMY_RADIUS }
  if surface == nil then return out end
  local nearest, nearest_d
  for _, e in pairs(surface.find_entities_filtered({ type = ENEMY_TYPES, position = pos, radius = reads.ENEMY_RADIUS })) do
    if force.is_enemy(e.force) then
      if e.type == "unit-spawner" then
        out.spawners = out.spawners + 1
      elseif e.type == "turret" then
        out.worms = out.worms + 1
      else
        out.units = out.units + 1
      end
      local d = util.dist(e.position, pos)
      if nearest == nil or d < nearest_d then nearest, nearest_d = e, d end
    end
  end
  if nearest then
    out.nearest = { name = nearest.name, position = util.pos(nearest.position), distance = util.round(nearest_d) }
  end
  return out
end

--- snapshot: the asked sections (all when none are asked).
function reads.snapshot(args)
  local asked = check.array(args.sections, "args.sections", true)
  if asked == nil or #asked == 0 then asked = reads.SECTIONS end
  local valid = {}
  for _, name in ipairs(reads.SECTIONS) do valid[name] = true end
  for i, name in ipairs(asked) do
    if type(name) ~= "string" or not valid[name] then
      check.bad("args.sections[" .. (i - 1) .. "]", "must be one of " .. table.concat(reads.SECTIONS, ", "))
    end
  end
  local out = {}
  for _, name in ipairs(asked) do out[name] = sections[name]() end
  return { sections = out }
end

-- Every entity type the loaded prototypes use, built once per session (prototypes never change
-- while a save runs; this is derived data, not state, so it stays out of storage).
local entity_types
local function known_entity_type(t)
  if entity_types == nil then
    entity_types = {}
    for _, proto in pairs(prototypes.entity) do entity_types[proto.type] = true end
  end
  return entity_types[t] == true
end

local function area_arg(v)
  if v == nil then return nil end
  if not util.is_object(v) then check.bad("args.area", "must be an object {left_top, right_bottom}") end
  local lt = check.pos(v.left_top, "args.area.left_top")
  local rb = check.pos(v.right_bottom, "args.area.right_bottom")
  -- A bounded scan: one request must not make the game walk a whole map's worth of chunks.
  if math.abs(rb.x - lt.x) > reads.AREA_MAX or math.abs(rb.y - lt.y) > reads.AREA_MAX then
    check.bad("args.area", "must be at most " .. reads.AREA_MAX .. " tiles across")
  end
  -- Either corner order is accepted; the game wants left_top to be the smaller one.
  return {
    left_top = { x = math.min(lt.x, rb.x), y = math.min(lt.y, rb.y) },
    right_bottom = { x = math.max(lt.x, rb.x), y = math.max(lt.y, rb.y) },
  }
end

--- find: entities by area, radius around the host, name and type; nearest to the host first.
function reads.find(args)
  local area = area_arg(args.area)
  local around = args.around ~= nil and check.num(args.around, "args.around", 1, 256) or nil
  local name = check.str(args.name, "args.name", 200, true)
  local typ = check.str(args.type, "args.type", 200, true)
  local limit = check.int(args.limit, "args.limit", 1, 200, 50)
  if not (area or around or name or typ) then check.bad("args", "needs at least one of area, around, name, type") end
  -- The game's search raises on an unknown name or type; answer the field at fault instead.
  if name and prototypes.entity[name] == nil then check.bad("args.name", "is not a known entity: " .. name) end
  if typ and not known_entity_type(typ) then check.bad("args.type", "is not a known entity type: " .. typ) end
  local surface, pos
  if around then
    local host = state.host()
    if host == nil or not host.connected then check.fail("unavailable", "no host player is online", { what = "host" }) end
    pos, surface = state.host_place(host)
  else
    surface, pos = centre()
    if surface == nil and area then
      -- Nobody to measure from: an area still names where to look, on the main surface.
      surface = game.surfaces["nauvis"] or game.surfaces[1]
      pos = { x = (area.left_top.x + area.right_bottom.x) / 2, y = (area.left_top.y + area.right_bottom.y) / 2 }
    end
    if surface == nil then check.fail("unavailable", "neither host nor body is in the game", { what = "host" }) end
  end
  local filter = { name = name, type = typ }
  local found
  if area then
    filter.area = { area.left_top, area.right_bottom }
    found = surface.find_entities_filtered(filter)
  else
    -- Grow the circle until it holds more than `limit`: the nearest `limit` inside it are the
    -- nearest overall, and a dense ore field is never read whole just to keep 50 tiles of it.
    local max = around or reads.FIND_RADIUS
    local r = math.min(16, max)
    filter.position = pos
    while true do
      filter.radius = r
      found = surface.find_entities_filtered(filter)
      if #found > limit or r >= max then break end
      r = math.min(r * 2, max)
    end
  end
  local origin = pos or { x = 0, y = 0 }
  local keyed = {}
  for i, e in pairs(found) do
    keyed[#keyed + 1] = { e = e, d = util.dist(e.position, origin), i = i }
  end
  -- Ties keep the game's order so equal distances come back the same way every time.
  table.sort(keyed, function(a, b)
    if a.d ~= b.d then return a.d < b.d end
    return a.i < b.i
  end)
  local out = {}
  for i = 1, math.min(limit, #keyed) do
    local e = keyed[i].e
    out[i] = { unit_number = e.unit_number, name = e.name, type = e.type, position = util.pos(e.position) }
  end
  return { entities = out, truncated = #keyed > limit }
end

local function inventories(e)
  local out = {}
  local max = e.get_max_inventory_index and e.get_max_inventory_index() or 0
  for i = 1, max do
    local inv = e.get_inventory(i)
    if inv ~= nil then
      out[inv.name or ("inventory_" .. i)] = util.contents(inv)
    end
  end
  return out
end

local function recipe_of(e)
  local ok, r = pcall(function()
    if e.type == "assembling-machine" or e.type == "furnace" or e.type == "rocket-silo" then
      local recipe = e.get_recipe()
      if recipe == nil and e.type == "furnace" and e.previous_recipe then return e.previous_recipe.name end
      return recipe and recipe.name or nil
    end
    return nil
  end)
  if ok then return r end
  return nil
end

--- inspect: one entity by unit number, or not_found.
function reads.inspect(args)
  local n = check.int(args.unit_number, "args.unit_number", 1)
  local e = game.get_entity_by_unit_number(n)
  if e == nil or not e.valid then check.fail("not_found", "no entity with unit number " .. n, { what = "entity" }) end
  local status = e.status
  return {
    entity = {
      unit_number = e.unit_number,
      name = e.name,
      type = e.type,
      position = util.pos(e.position),
      direction = reverse(defines.direction)[e.direction],
      health = e.health,
      status = status and reverse(defines.entity_status)[status] or nil,
      recipe = recipe_of(e),
      inventories = inventories(e),
      energy = e.energy,
    },
  }
end

local function ingredient_list(list)
  local out = {}
  for i, x in ipairs(list or {}) do
    local amount = x.amount
    if amount == nil and x.amount_min then amount = (x.amount_min + x.amount_max) / 2 end
    if amount and x.probability and x.probability < 1 then amount = amount * x.probability end
    out[i] = { type = x.type, name = x.name, amount = amount }
  end
  return out
end

--- recipe: one recipe by name (enabled as the host's force sees it), or not_found.
function reads.recipe(args)
  local name = check.str(args.name, "args.name", 200)
  local proto = prototypes.recipe[name]
  if proto == nil then check.fail("not_found", "no recipe named " .. name, { what = "recipe" }) end
  local host = state.host()
  local force = host and host.force or game.forces["player"]
  local forced = force and force.recipes[name]
  return {
    recipe = {
      name = proto.name,
      category = proto.category,
      energy = proto.energy,
      enabled = forced and forced.enabled or false,
      ingredients = ingredient_list(proto.ingredients),
      products = ingredient_list(proto.products),
    },
  }
end

--- jobs: every job record held, oldest first.
function reads.jobs()
  return { jobs = jobs.list() }
end

return reads
