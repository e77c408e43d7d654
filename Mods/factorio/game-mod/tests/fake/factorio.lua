-- A data-driven stand-in for the parts of the Factorio 2.0 runtime API the mod uses.
-- Game objects are proxies that behave like LuaObjects: methods are called with `.`, reading
-- an unknown key or any key of an invalid object errors as in the game, and read-only keys
-- refuse writes. The world advances tick by tick: characters walk (walking_state lapses each
-- tick, as in the game), hand-crafting progresses, handlers registered by the mod run.
local json = require("json")
local data = require("data")

local fake = {}

-- The game's Lua has no io, no os, no loadfile or dofile; the fake keeps its own handles and
-- removes those globals while the mod runs, so a mod that reached for them fails here too.
local real_loadfile = loadfile
fake.HIDDEN_GLOBALS = { "io", "os", "loadfile", "dofile" }
fake.saved_globals = {}
for _, name in ipairs(fake.HIDDEN_GLOBALS) do fake.saved_globals[name] = _G[name] end

--- Puts back the globals the fake hid and lifts strict mode (the runner calls this after each case).
function fake.restore_globals()
  setmetatable(_G, nil)
  for name, v in pairs(fake.saved_globals) do rawset(_G, name, v) end
end

-- Strict globals while the mod runs: a mod that forgets a `local` or reads a name the game does
-- not define fails here (the game would share that global with every handler, or crash on it).
local STRICT = {
  __newindex = function(_, k) error("the mod assigned the undeclared global " .. tostring(k), 2) end,
  __index = function(_, k) error("the mod read the undefined global " .. tostring(k), 2) end,
}

local MOD_FILES_ROOT -- set by fake.configure

--- Tells the fake where the mod lives (the folder holding control.lua).
function fake.configure(root)
  MOD_FILES_ROOT = root
end

local objects = setmetatable({}, { __mode = "k" }) -- proxy -> class name

--- True when v is one of the fake's LuaObjects (storage may hold those, like the game's).
function fake.is_lua_object(v)
  return objects[v] ~= nil
end

-- Builds a LuaObject proxy. `get[k](d)` computes key k, `set[k](d, v)` writes it, `methods[k]`
-- are functions called with `.`. d.valid false makes every key but `valid` an error.
local function lua_object(class, d, get, set, methods)
  d.valid = d.valid ~= false
  local proxy = {}
  setmetatable(proxy, {
    __index = function(_, k)
      if k == "valid" then return d.valid end
      if k == "object_name" then return class end
      if not d.valid then error(class .. " API call when " .. class .. " was invalid", 2) end
      if methods and methods[k] then return methods[k] end
      if get and get[k] then return get[k](d) end
      error(class .. " doesn't contain key " .. tostring(k) .. ".", 2)
    end,
    __newindex = function(_, k, v)
      if not d.valid then error(class .. " API call when " .. class .. " was invalid", 2) end
      if set and set[k] then return set[k](d, v) end
      error(class .. ": key " .. tostring(k) .. " is read-only or unknown.", 2)
    end,
    __pairs = d.__pairs,
  })
  objects[proxy] = class
  d.proxy = proxy
  return proxy
end

local function field(name) return function(d) return d[name] end end

-- Factorio 2.0's print(message, print_settings): the second argument is PrintSettings, no longer
-- a bare colour as in 1.1; refuse anything else so a 1.1-style call fails here.
local PRINT_SETTINGS = { color = true, sound = true, sound_path = true, volume_modifier = true, game_state = true,
  skip = true }
local function check_print(message, settings)
  assert(type(message) == "string" or type(message) == "table", "fake: print needs a LocalisedString")
  if settings == nil then return end
  assert(type(settings) == "table", "fake: print_settings must be a table")
  for k in pairs(settings) do
    assert(PRINT_SETTINGS[k], "fake: print_settings has no key " .. tostring(k) .. " (a 1.1-style colour?)")
  end
end

local function xy(p)
  if p == nil then return nil end
  return { x = p.x or p[1], y = p.y or p[2] }
end

local function dist(a, b)
  local dx, dy = a.x - b.x, a.y - b.y
  return math.sqrt(dx * dx + dy * dy)
end

-- A LuaCustomTable: indexable by key (and by name for named items), iterable with pairs.
local function custom_table(class, entries, by_name)
  local d = {}
  d.__pairs = function()
    local i = 0
    local keys = {}
    for k in pairs(entries) do keys[#keys + 1] = k end
    table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
    return function()
      i = i + 1
      local k = keys[i]
      if k == nil then return nil end
      return k, entries[k]
    end
  end
  local proxy = {}
  setmetatable(proxy, {
    __index = function(_, k)
      local v = entries[k]
      if v == nil and by_name then v = by_name(k) end
      return v
    end,
    __newindex = function() error(class .. " is read-only", 2) end,
    __pairs = d.__pairs,
    __len = function() return #entries end,
  })
  return proxy
end

-- Inventories: contents by name, a slot budget from stack sizes.
local function new_inventory(world, name, slots)
  local d = { name = name, slots = slots, contents = {} }
  local inv
  local function used_slots(contents)
    local n = 0
    for item, count in pairs(contents) do
      local stack = (data.items[item] or { stack_size = 50 }).stack_size
      n = n + math.ceil(count / stack)
    end
    return n
  end
  local m = {}
  function m.get_contents()
    local out, names = {}, {}
    for item in pairs(d.contents) do names[#names + 1] = item end
    table.sort(names)
    for _, item in ipairs(names) do out[#out + 1] = { name = item, count = d.contents[item], quality = "normal" } end
    return out
  end
  function m.get_item_count(item)
    if item == nil then
      local n = 0
      for _, c in pairs(d.contents) do n = n + c end
      return n
    end
    return d.contents[item] or 0
  end
  function m.insert(stack)
    local item, count = stack.name, stack.count or 1
    local fit = 0
    for _ = 1, count do
      d.contents[item] = (d.contents[item] or 0) + 1
      if used_slots(d.contents) > d.slots then
        d.contents[item] = d.contents[item] - 1
        if d.contents[item] == 0 then d.contents[item] = nil end
        break
      end
      fit = fit + 1
    end
    return fit
  end
  function m.remove(stack)
    local item, count = stack.name, stack.count or 1
    local have = d.contents[item] or 0
    local n = math.min(have, count)
    if have - n == 0 then d.contents[item] = nil else d.contents[item] = have - n end
    return n
  end
  function m.is_empty() return next(d.contents) == nil end
  inv = lua_object("LuaInventory", d, { name = field("name") }, nil, m)
  d.world = world
  return inv, d
end

local DIRECTION = {
  north = 0, northnortheast = 1, northeast = 2, eastnortheast = 3, east = 4, eastsoutheast = 5, southeast = 6,
  southsoutheast = 7, south = 8, southsouthwest = 9, southwest = 10, westsouthwest = 11, west = 12,
  westnorthwest = 13, northwest = 14, northnorthwest = 15,
}

local EVENTS = {
  "on_tick", "on_console_chat", "on_player_died", "on_entity_died", "on_rocket_launched", "on_research_finished",
  "on_player_joined_game", "on_player_left_game", "on_entity_damaged", "on_built_entity", "on_script_path_request_finished",
  "on_runtime_mod_setting_changed",
}

local function make_defines()
  local events = {}
  for i, name in ipairs(EVENTS) do events[name] = i - 1 end
  return {
    events = events,
    direction = DIRECTION,
    inventory = { character_main = 1, chest = 1, fuel = 1, furnace_source = 2, furnace_result = 3 },
    entity_status = { working = 1, normal = 2, no_power = 3, no_fuel = 4, no_ingredients = 5, waiting_for_space_in_destination = 6 },
    print_skip = { never = 0, if_redundant = 1, if_visible = 2 },
    flow_precision_index = { five_seconds = 0, one_minute = 1, ten_minutes = 2, one_hour = 3 },
    build_check_type = { script = 0, manual = 1 },
  }
end

-- Entities ------------------------------------------------------------------------------------

local function entity_proto_object(world, name)
  local p = data.entities[name]
  if p == nil then return nil end
  world.entity_protos = world.entity_protos or {}
  if world.entity_protos[name] then return world.entity_protos[name] end
  local minable = p.minable ~= false and p.mining_time ~= nil
  local props = { minable = minable, mining_time = p.mining_time or 0, products = p.products }
  local proxy = lua_object("LuaEntityPrototype", { name = name }, {
    name = function() return name end,
    type = function() return p.type end,
    mineable_properties = function() return props end,
    mining_speed = function() return p.mining_speed end,
    crafting_categories = function()
      if p.type == "character" then return { crafting = true } end
      return nil
    end,
    collision_mask = function()
      return { layers = { player = true, water_tile = true, object = true }, not_colliding_with_itself = false }
    end,
  })
  world.entity_protos[name] = proxy
  return proxy
end

local new_entity

local function entity_methods(world, d)
  local m = {}
  function m.destroy()
    world:remove_entity(d)
    return true
  end
  function m.get_main_inventory()
    if d.type ~= "character" then return nil end
    return d.inventories[1]
  end
  function m.get_inventory(i) return d.inventories and d.inventories[i] or nil end
  function m.get_max_inventory_index() return d.inventories and #d.inventories or 0 end
  function m.get_item_count(item)
    local n = 0
    for _, inv in ipairs(d.inventories or {}) do n = n + inv.get_item_count(item) end
    return n
  end
  function m.insert(stack)
    local left, done = stack.count or 1, 0
    for _, inv in ipairs(d.inventories or {}) do
      local n = inv.insert({ name = stack.name, count = left })
      done, left = done + n, left - n
      if left == 0 then break end
    end
    return done
  end
  function m.remove_item(stack)
    local left, done = stack.count or 1, 0
    for _, inv in ipairs(d.inventories or {}) do
      local n = inv.remove({ name = stack.name, count = left })
      done, left = done + n, left - n
      if left == 0 then break end
    end
    return done
  end
  function m.can_reach_entity(e)
    return e.surface == d.surface and dist(d.position, e.position) <= d.reach_distance
  end
  function m.mine_entity(e)
    local proto = data.entities[e.name]
    if proto.minable == false or proto.mining_time == nil then return false end
    local inv = d.inventories[1]
    for _, product in ipairs(proto.products or {}) do
      local got = inv.insert({ name = product.name, count = product.amount })
      if got < product.amount then
        inv.remove({ name = product.name, count = got })
        return false
      end
    end
    local ed = world.entity_data[e]
    -- As in the game, what the entity held comes along into the miner's inventory.
    for _, held in ipairs(ed.type ~= "resource" and ed.inventories or {}) do
      for _, stack in ipairs(held.get_contents()) do
        inv.insert({ name = stack.name, count = stack.count })
      end
    end
    if ed.type == "resource" then
      ed.amount = ed.amount - 1
      if ed.amount <= 0 then world:remove_entity(ed) end
    else
      world:remove_entity(ed)
    end
    return true
  end
  function m.get_craftable_count(recipe)
    local r = data.recipes[type(recipe) == "string" and recipe or recipe.name]
    local can = math.huge
    for _, ing in ipairs(r.ingredients) do
      can = math.min(can, math.floor(m.get_item_count(ing.name) / ing.amount))
    end
    return can
  end
  function m.begin_crafting(args)
    local name = type(args.recipe) == "string" and args.recipe or args.recipe.name
    local r = data.recipes[name]
    local n = math.min(args.count, m.get_craftable_count(name))
    if n <= 0 then
      if args.silent then return 0 end
      error("Can't begin crafting: not enough ingredients")
    end
    for _, ing in ipairs(r.ingredients) do m.remove_item({ name = ing.name, count = ing.amount * n }) end
    d.craft_index = (d.craft_index or 0) + 1
    d.craft_queue[#d.craft_queue + 1] = { index = d.craft_index, recipe = name, count = n,
      ticks_left = math.ceil(r.energy * 60) }
    return n
  end
  function m.cancel_crafting(args)
    for i, q in ipairs(d.craft_queue) do
      if q.index == args.index then
        local n = math.min(args.count, q.count)
        for _, ing in ipairs(data.recipes[q.recipe].ingredients) do m.insert({ name = ing.name, count = ing.amount * n }) end
        q.count = q.count - n
        if q.count <= 0 then table.remove(d.craft_queue, i) end
        return
      end
    end
    error("Invalid crafting queue index")
  end
  function m.teleport(pos, surface)
    d.position = xy(pos)
    if surface then d.surface = surface end
    return true
  end
  function m.get_recipe()
    if d.recipe == nil then return nil end
    return world.recipe_protos[d.recipe]
  end
  function m.die(force, cause)
    world:kill(d.proxy, cause, force)
    return true
  end
  return m
end

new_entity = function(world, surface, spec)
  local p = data.entities[spec.name]
  assert(p, "fake: unknown entity " .. tostring(spec.name))
  local force = spec.force
  if type(force) == "string" then force = world.forces[force] end
  force = force or world.forces.neutral
  local d = {
    name = spec.name,
    type = p.type,
    position = xy(spec.position),
    surface = surface,
    force = force,
    health = spec.health or p.health,
    direction = spec.direction or 0,
    amount = spec.amount,
    recipe = spec.recipe,
    energy = spec.energy or 0,
    status = spec.status,
    electric_network_id = spec.electric_network_id,
    walking_state = { walking = false, direction = 0 },
    mining_state = { mining = false },
    craft_queue = {},
    reach_distance = 10,
    build_distance = 10,
  }
  if p.unit_number then
    world.next_unit = world.next_unit + 1
    d.unit_number = world.next_unit
  end
  if p.type == "character" then
    local inv = new_inventory(world, "character_main", spec.slots or 80)
    d.inventories = { inv }
  elseif p.inventories then
    d.inventories = {}
    for i, spec_inv in ipairs(p.inventories) do d.inventories[i] = new_inventory(world, spec_inv.name, spec_inv.slots) end
  end
  for item, count in pairs(spec.inventory or {}) do d.inventories[1].insert({ name = item, count = count }) end
  local get = {}
  for _, k in ipairs({ "name", "type", "surface", "force", "health", "direction", "amount", "unit_number", "energy",
    "walking_state", "mining_state", "reach_distance", "build_distance", "electric_network_id" }) do
    get[k] = field(k)
  end
  get.position = function() return { x = d.position.x, y = d.position.y } end
  get.prototype = function() return entity_proto_object(world, d.name) end
  get.crafting_queue_size = function()
    local n = 0
    for _, q in ipairs(d.craft_queue) do n = n + q.count end
    return n
  end
  get.crafting_queue = function()
    if #d.craft_queue == 0 then return nil end
    local out = {}
    for i, q in ipairs(d.craft_queue) do out[i] = { index = q.index, recipe = q.recipe, count = q.count } end
    return out
  end
  get.status = function() return d.status end
  get.previous_recipe = function() return nil end
  get.electric_network_statistics = function() return world:flow_stats(world.scenario.power and world.scenario.power[d.electric_network_id]) end
  get.player = function() return nil end
  local set = {
    walking_state = function(_, v)
      assert(type(v) == "table" and type(v.walking) == "boolean", "fake: walking_state needs {walking, direction}")
      d.walking_state = { walking = v.walking, direction = v.direction }
    end,
    mining_state = function(_, v)
      assert(type(v) == "table" and type(v.mining) == "boolean", "fake: mining_state needs {mining, position?}")
      d.mining_state = v
    end,
    health = function(_, v) d.health = v end,
  }
  local proxy = lua_object("LuaEntity", d, get, set, entity_methods(world, d))
  world.entity_data[proxy] = d
  local list = world.surface_entities[surface]
  list[#list + 1] = d
  if d.unit_number then world.by_unit[d.unit_number] = d end
  return proxy
end

-- Surfaces ----------------------------------------------------------------------------------

local function as_list(v)
  if v == nil then return nil end
  if type(v) == "string" then return { [v] = true } end
  local out = {}
  for _, x in ipairs(v) do out[x] = true end
  return out
end

local function new_surface(world, name, index, seed)
  local d = { name = name, index = index }
  local m = {}
  local function inside(list, pos)
    for _, area in ipairs(list or {}) do
      if area.surface == nil or area.surface == name then
        local lt, rb = area.left_top, area.right_bottom
        if pos.x >= lt.x and pos.x <= rb.x and pos.y >= lt.y and pos.y <= rb.y then return area end
      end
    end
    return nil
  end
  -- scenario.blocked: walls the pathfinder knows; scenario.hidden_blocked: obstacles only
  -- movement meets (what the pathfinder could not foresee).
  local function blocked(pos) return inside(world.scenario.blocked, pos) ~= nil end
  d.blocked = function(pos) return blocked(pos) or inside(world.scenario.hidden_blocked, pos) ~= nil end

  -- A small pathfinder over the known walls: straight when clear, else around one wall at a
  -- time by its corners (1 tile off); nil when the goal is walled in.
  local function first_hit(a, b)
    -- Sampled every 0.2 tiles (at most 5000 samples: a fake, not the game's pathfinder).
    local n = math.min(5000, math.max(1, math.ceil(dist(a, b) / 0.2)))
    for i = 0, n do
      local p = { x = a.x + (b.x - a.x) * i / n, y = a.y + (b.y - a.y) * i / n }
      local hit = inside(world.scenario.blocked, p)
      if hit then return hit end
    end
    return nil
  end
  local function plan(start, goal)
    if blocked(goal) then return nil end
    local path, cur = {}, start
    for _ = 1, 10 do
      local wall = first_hit(cur, goal)
      if wall == nil then
        path[#path + 1] = goal
        return path
      end
      local lt, rb = wall.left_top, wall.right_bottom
      local dx, dy = goal.x - cur.x, goal.y - cur.y
      local detour
      if math.abs(dx) >= math.abs(dy) then
        local top, bottom = lt.y - 1, rb.y + 1
        local y = (math.abs(cur.y - top) + math.abs(goal.y - top) <= math.abs(cur.y - bottom) + math.abs(goal.y - bottom))
          and top or bottom
        local x_in, x_out = lt.x - 1, rb.x + 1
        if dx < 0 then x_in, x_out = x_out, x_in end
        detour = { { x = x_in, y = y }, { x = x_out, y = y } }
      else
        local left, right = lt.x - 1, rb.x + 1
        local x = (math.abs(cur.x - left) + math.abs(goal.x - left) <= math.abs(cur.x - right) + math.abs(goal.x - right))
          and left or right
        local y_in, y_out = lt.y - 1, rb.y + 1
        if dy < 0 then y_in, y_out = y_out, y_in end
        detour = { { x = x, y = y_in }, { x = x, y = y_out } }
      end
      for _, wp in ipairs(detour) do
        if first_hit(cur, wp) then return nil end
        path[#path + 1] = wp
        cur = wp
      end
    end
    return nil
  end
  function m.request_path(args)
    assert(args.bounding_box and args.collision_mask and args.start and args.goal and args.force,
      "fake: request_path needs bounding_box, collision_mask, start, goal, force")
    world.next_path_id = world.next_path_id + 1
    local req = { id = world.next_path_id, due = world.game_data.tick + (world.scenario.path_delay or 1),
      start = xy(args.start), goal = xy(args.goal), plan = plan, ignore = args.entity_to_ignore }
    world.path_requests[#world.path_requests + 1] = req
    return req.id
  end
  function m.find_entities_filtered(f)
    local names, types, forces = as_list(f.name), as_list(f.type), nil
    -- As the game does: an unknown entity name or type in a filter is an error.
    for n in pairs(names or {}) do
      if data.entities[n] == nil then error("Unknown entity name: " .. n, 2) end
    end
    for t in pairs(types or {}) do
      if not data.entity_types[t] then error("Unknown entity type: " .. t, 2) end
    end
    if f.force then
      forces = {}
      local list = type(f.force) == "table" and f.force[1] and f.force or { f.force }
      for _, x in ipairs(list) do forces[type(x) == "string" and x or x.name] = true end
    end
    local area = f.area
    local lt, rb
    if area then
      lt, rb = xy(area.left_top or area[1]), xy(area.right_bottom or area[2])
    end
    local centre = xy(f.position)
    local out = {}
    for _, e in ipairs(world.surface_entities[d.proxy]) do
      local ok = true
      if names and not names[e.name] then ok = false end
      if ok and types and not types[e.type] then ok = false end
      if ok and forces and not forces[e.force.name] then ok = false end
      if ok and lt and not (e.position.x >= lt.x and e.position.x <= rb.x and e.position.y >= lt.y and e.position.y <= rb.y) then
        ok = false
      end
      if ok and centre then
        if f.radius then
          if dist(e.position, centre) > f.radius then ok = false end
        elseif math.abs(e.position.x - centre.x) > 0.5 or math.abs(e.position.y - centre.y) > 0.5 then
          ok = false
        end
      end
      if ok then
        out[#out + 1] = e.proxy
        if f.limit and #out >= f.limit then break end
      end
    end
    return out
  end
  local function occupied(pos, ignore)
    if d.blocked(pos) then return true end
    for _, e in ipairs(world.surface_entities[d.proxy]) do
      if e ~= ignore and data.entities[e.name].collides and dist(e.position, pos) < 1 then return true end
    end
    return false
  end
  function m.find_non_colliding_position(name, pos, radius)
    assert(data.entities[name], "fake: unknown entity " .. tostring(name))
    pos = xy(pos)
    for r = 0, radius do
      for dx = -r, r do
        for dy = -r, r do
          if math.max(math.abs(dx), math.abs(dy)) == r then
            local p = { x = pos.x + dx, y = pos.y + dy }
            if not occupied(p) then return p end
          end
        end
      end
    end
    return nil
  end
  function m.can_place_entity(spec)
    assert(data.entities[spec.name], "fake: unknown entity " .. tostring(spec.name))
    return not occupied(xy(spec.position))
  end
  function m.create_entity(spec)
    if world.scenario.create_fails then return nil end
    local e = new_entity(world, d.proxy, spec)
    if spec.raise_built then world.built[#world.built + 1] = e end
    return e
  end
  local get = {
    name = field("name"),
    index = field("index"),
    map_gen_settings = function() return { seed = seed } end,
  }
  local proxy = lua_object("LuaSurface", d, get, nil, m)
  world.surface_entities[proxy] = {}
  world.surface_data[proxy] = d
  return proxy
end

-- Forces, players, prototypes ------------------------------------------------------------------

function fake.flow_stats_object(stats)
  stats = stats or {}
  local inputs, outputs = {}, {}
  for name, v in pairs(stats.input or {}) do inputs[name] = v end
  for name, v in pairs(stats.output or {}) do outputs[name] = v end
  return lua_object("LuaFlowStatistics", {}, {
    input_counts = function() return inputs end,
    output_counts = function() return outputs end,
  }, nil, {
    get_flow_count = function(args)
      assert(args.name and args.category and args.precision_index, "fake: get_flow_count needs name, category, precision_index")
      local side = args.category == "input" and inputs or outputs
      return side[args.name] or 0
    end,
  })
end

local function new_force(world, name, spec)
  local d = { name = name, enemies = spec.enemies or {}, research_progress = spec.research_progress or 0 }
  local recipes = {}
  for rname, r in pairs(data.recipes) do
    local enabled = r.enabled ~= false
    if spec.recipes and spec.recipes[rname] ~= nil then enabled = spec.recipes[rname] end
    recipes[rname] = lua_object("LuaRecipe", { name = rname }, {
      name = function() return rname end,
      enabled = function() return enabled end,
    })
  end
  local techs = {}
  for tname, t in pairs(data.technologies) do
    local td = { name = tname, researched = t.researched, level = 1 }
    techs[tname] = lua_object("LuaTechnology", td, { name = field("name"), researched = field("researched"), level = field("level") })
    world.tech_data[name .. "/" .. tname] = td
  end
  d.techs = techs
  local get = {
    name = field("name"),
    recipes = function() return custom_table("LuaCustomTable", recipes) end,
    technologies = function() return custom_table("LuaCustomTable", techs) end,
    current_research = function() return d.current and techs[d.current] or nil end,
    research_progress = field("research_progress"),
  }
  local m = {}
  function m.is_enemy(other)
    local other_name = type(other) == "string" and other or other.name
    for _, e in ipairs(d.enemies) do
      if e == other_name then return true end
    end
    local od = world.force_specs[other_name]
    for _, e in ipairs(od and od.enemies or {}) do
      if e == name then return true end
    end
    return false
  end
  function m.print(message, settings)
    check_print(message, settings)
    world.force_prints[#world.force_prints + 1] = { force = name, message = message, settings = settings }
  end
  function m.get_spawn_position() return { x = 0, y = 0 } end
  function m.get_item_production_statistics(surface)
    assert(surface ~= nil, "fake: get_item_production_statistics needs a surface")
    return fake.flow_stats_object(world.scenario.production)
  end
  world.force_specs[name] = d
  return lua_object("LuaForce", d, get, nil, m)
end

local function new_player(world, index, spec)
  local surface = world.surfaces[spec.surface or "nauvis"]
  local d = {
    index = index,
    name = spec.name,
    connected = spec.connected ~= false,
    position = xy(spec.position or { 0, 0 }),
    surface = surface,
    force = world.forces[spec.force or "player"],
    ticks_to_respawn = spec.ticks_to_respawn,
    admin = spec.admin or false,
  }
  if spec.character ~= false then
    d.character = surface.create_entity({ name = "character", position = d.position, force = d.force, inventory = spec.inventory })
    world.player_characters[d.character] = d
  end
  local get = {}
  for _, k in ipairs({ "index", "name", "connected", "surface", "force", "ticks_to_respawn", "admin" }) do get[k] = field(k) end
  local function where()
    if d.character and d.character.valid then return d.character.position end
    return { x = d.position.x, y = d.position.y }
  end
  get.position = where
  get.physical_position = where
  get.physical_surface = field("surface")
  get.character = function()
    if d.character and d.character.valid then return d.character end
    return nil
  end
  local m = {}
  function m.print(message, settings)
    check_print(message, settings)
    world.player_prints[#world.player_prints + 1] = { player = d.name, message = message, settings = settings }
  end
  function m.get_main_inventory()
    return d.character and d.character.valid and d.character.get_main_inventory() or nil
  end
  local proxy = lua_object("LuaPlayer", d, get, nil, m)
  world.player_data[proxy] = d
  return proxy
end

local function prototype_tables(world)
  local items = {}
  for name, it in pairs(data.items) do
    items[name] = lua_object("LuaItemPrototype", { name = name }, {
      name = function() return name end,
      stack_size = function() return it.stack_size end,
      place_result = function() return it.place_result and entity_proto_object(world, it.place_result) or nil end,
    })
  end
  local recipes = {}
  for name, r in pairs(data.recipes) do
    recipes[name] = lua_object("LuaRecipePrototype", { name = name }, {
      name = function() return name end,
      category = function() return r.category end,
      energy = function() return r.energy end,
      ingredients = function() return r.ingredients end,
      products = function() return r.products end,
    })
  end
  world.recipe_protos = recipes
  local entities = {}
  for name in pairs(data.entities) do entities[name] = entity_proto_object(world, name) end
  return {
    item = custom_table("LuaCustomTable", items),
    recipe = custom_table("LuaCustomTable", recipes),
    entity = custom_table("LuaCustomTable", entities),
  }
end

-- The world ---------------------------------------------------------------------------------

local World = {}
World.__index = World

function World:flow_stats(stats) return fake.flow_stats_object(stats) end

function World:remove_entity(d)
  d.valid = false
  local list = self.surface_entities[d.surface]
  for i, e in ipairs(list) do
    if e == d then
      table.remove(list, i)
      break
    end
  end
  if d.unit_number then self.by_unit[d.unit_number] = nil end
end

--- Moves a character one tick: 0.15 tiles in its walking direction unless the spot is blocked.
local SPEED = 0.15
function World:step_entities()
  for surface, list in pairs(self.surface_entities) do
    local sd = self.surface_data[surface]
    for _, d in ipairs(list) do
      if d.type == "character" then
        local ws = d.walking_state
        if ws.walking then
          local angle = (ws.direction or 0) * math.pi / 8
          local next_pos = { x = d.position.x + math.sin(angle) * SPEED, y = d.position.y - math.cos(angle) * SPEED }
          if not sd.blocked(next_pos) then d.position = next_pos end
          -- The game needs walking_state renewed every tick for a character nobody controls.
          d.walking_state = { walking = false, direction = ws.direction }
        end
        local q = d.craft_queue[1]
        if q then
          q.ticks_left = q.ticks_left - 1
          if q.ticks_left <= 0 then
            local r = data.recipes[q.recipe]
            for _, product in ipairs(r.products) do d.proxy.insert({ name = product.name, count = product.amount }) end
            q.count = q.count - 1
            if q.count <= 0 then table.remove(d.craft_queue, 1) else q.ticks_left = math.ceil(r.energy * 60) end
          end
        end
      end
    end
  end
end

local function filters_pass(filters, entity)
  if filters == nil then return true end
  local result
  for i, f in ipairs(filters) do
    assert(f.filter == "type", "fake: only type filters are modelled")
    local match = entity.type == f.type
    if f.invert then match = not match end
    if i == 1 or f.mode ~= "and" then
      result = (result or false) or match
      if i == 1 then result = match end
    else
      result = result and match
    end
  end
  return result
end

--- Raises event `name` with fields `e` to the mod's handler (when it registered one).
function World:raise(name, e)
  local id = self.defines.events[name]
  local h = self.handlers[id]
  if h == nil then return end
  e = e or {}
  e.name, e.tick = id, self.game_data.tick
  if h.filters and e.entity and not filters_pass(h.filters, e.entity) then return end
  h.f(e)
end

--- Advances `n` ticks: entities move and craft, then on_tick and the on_nth_tick handlers run.
-- Answers the path requests that are due, as on_script_path_request_finished.
function World:deliver_paths()
  local pending = {}
  for _, req in ipairs(self.path_requests) do
    if req.due <= self.game_data.tick then
      self.path_log[#self.path_log + 1] = req
      if (self.scenario.path_busy or 0) > 0 then
        self.scenario.path_busy = self.scenario.path_busy - 1
        self:raise("on_script_path_request_finished", { id = req.id, try_again_later = true })
      else
        local waypoints = req.plan(req.start, req.goal)
        local path
        if waypoints then
          path = {}
          for i, p in ipairs(waypoints) do path[i] = { position = p, needs_destroy_to_reach = false } end
        end
        self:raise("on_script_path_request_finished", { id = req.id, path = path, try_again_later = false })
      end
    else
      pending[#pending + 1] = req
    end
  end
  self.path_requests = pending
end

function World:tick(n)
  for _ = 1, n or 1 do
    self.game_data.tick = self.game_data.tick + 1
    self:step_entities()
    self:deliver_paths()
    self:raise("on_tick", {})
    for period, f in pairs(self.nth) do
      if self.game_data.tick % period == 0 then f({ tick = self.game_data.tick, nth_tick = period }) end
    end
  end
end

--- Runs ticks until `pred()` holds (checked after each tick) or `max` ticks passed; returns ticks run.
function World:run_until(pred, max)
  for i = 1, max do
    self:tick(1)
    if pred() then return i end
  end
  error("fake: condition not reached in " .. max .. " ticks", 2)
end

--- Sends one /coop-rpc command as RCON would; returns the decoded reply and the raw text.
function World:rpc(req)
  local text = type(req) == "string" and req or json.encode(req)
  local before = #self.rcon_out
  self.commands["coop-rpc"].f({ name = "coop-rpc", tick = self.game_data.tick, parameter = text })
  local printed = #self.rcon_out - before
  if printed ~= 1 then error("fake: /coop-rpc printed " .. printed .. " times to RCON, not once", 2) end
  local raw = self.rcon_out[#self.rcon_out]
  local reply = json.decode(raw)
  if type(reply) ~= "table" then error("fake: reply is not JSON: " .. tostring(raw), 2) end
  return reply, raw
end

--- Runs a chat command typed by a player (parameter optional).
function World:command(name, player, parameter)
  local p = self.players_by_name[player]
  self.commands[name].f({ name = name, tick = self.game_data.tick, player_index = p.index, parameter = parameter })
end

--- The fake's view of a player (by name).
function World:player(name) return self.players_by_name[name] end

--- Kills an entity as the game would: on_entity_died, then the entity is gone.
function World:kill(entity, cause, force)
  local d = self.entity_data[entity]
  self:raise("on_entity_died", { entity = entity, cause = cause, force = force })
  self:remove_entity(d)
  local pd = self.player_characters[entity]
  if pd then
    -- A dead player stays where the character fell until the respawn.
    pd.position = { x = d.position.x, y = d.position.y }
    pd.ticks_to_respawn = 600
    self:raise("on_player_died", { player_index = pd.index, cause = cause })
  end
end

--- Damages an entity as the game would, raising on_entity_damaged.
function World:damage(entity, amount, force, cause)
  local d = self.entity_data[entity]
  d.health = math.max(0, d.health - amount)
  if type(force) == "string" then force = self.forces[force] end
  self:raise("on_entity_damaged", {
    entity = entity, damage_type = "physical", original_damage_amount = amount, final_damage_amount = amount,
    final_health = d.health, cause = cause, force = force,
  })
end

--- Spawns an entity on a surface (default nauvis) and returns it.
function World:spawn(spec, surface)
  return self.surfaces[surface or "nauvis"].create_entity(spec)
end

--- A player joins (connected) and the game raises on_player_joined_game.
function World:join(name)
  local p = self.players_by_name[name]
  self.player_data[p].connected = true
  self:raise("on_player_joined_game", { player_index = p.index })
end

--- A player leaves and the game raises on_player_left_game.
function World:leave(name)
  local p = self.players_by_name[name]
  self.player_data[p].connected = false
  self:raise("on_player_left_game", { player_index = p.index })
end

--- A player says something in chat.
function World:chat(name, text)
  local p = self.players_by_name[name]
  self:raise("on_console_chat", { player_index = p.index, message = text })
end

--- Moves a player's character (or position) somewhere.
function World:move_player(name, pos, surface)
  local pd = self.player_data[self.players_by_name[name]]
  if surface then pd.surface = self.surfaces[surface] end
  if pd.character and pd.character.valid then
    pd.character.teleport(pos, pd.surface)
  else
    pd.position = xy(pos)
  end
end

--- Finishes a research for the player force.
function World:finish_research(name)
  local td = self.tech_data["player/" .. name]
  td.researched = true
  self:raise("on_research_finished", { research = td.proxy, by_script = false })
end

-- Installs the fake API as globals for the mod to see.
function World:install()
  setmetatable(_G, nil)
  _G.game = self.game
  _G.script = self.script
  _G.commands = self.commands_api
  _G.rcon = self.rcon
  _G.helpers = self.helpers
  _G.defines = self.defines
  _G.settings = self.settings
  _G.prototypes = self.prototypes
  _G.rendering = self.rendering
  _G.log = function(s) self.logs[#self.logs + 1] = tostring(s) end
  if rawget(_G, "storage") == nil then _G.storage = false end
  for _, name in ipairs(fake.HIDDEN_GLOBALS) do _G[name] = nil end
  setmetatable(_G, STRICT)
end

local MOD_MODULES = { "scripts.util", "scripts.state", "scripts.events", "scripts.check", "scripts.body", "scripts.jobs",
  "scripts.reads", "scripts.writes", "scripts.rpc", "scripts.watch" }

-- Runs control.lua with fresh module state, as the game does on every load.
function World:run_control()
  for _, m in ipairs(MOD_MODULES) do package.loaded[m] = nil end
  self.handlers, self.nth, self.commands = {}, {}, {}
  self.init_handler, self.config_handler, self.load_handler = nil, nil, nil
  self:install()
  local chunk = assert(real_loadfile(MOD_FILES_ROOT .. "/control.lua"))
  chunk()
end

--- Starts the mod on a new map: control.lua, then on_init.
function World:start_mod()
  _G.storage = {}
  self:run_control()
  if self.init_handler then self.init_handler() end
  return self
end

-- Storage may hold plain data and LuaObjects, nothing else; returns a deep copy or raises. One
-- table reachable twice is refused too: a save would not keep the two places one table.
local function save_copy(v, path, seen)
  local tv = type(v)
  if tv == "function" or tv == "thread" or tv == "userdata" then
    error("storage." .. path .. " holds a " .. tv .. ", which a save cannot keep", 0)
  end
  if tv ~= "table" then return v end
  if fake.is_lua_object(v) then return v end
  if getmetatable(v) ~= nil then error("storage." .. path .. " has a metatable, which a save drops", 0) end
  if seen[v] then
    error("storage." .. path .. " is the same table as storage." .. seen[v] .. " (a save would split them)", 0)
  end
  seen[v] = path
  local out = {}
  for k, x in pairs(v) do
    if type(k) ~= "string" and type(k) ~= "number" then error("storage." .. path .. " has a " .. type(k) .. " key", 0) end
    out[k] = save_copy(x, path == "" and tostring(k) or (path .. "." .. tostring(k)), seen)
  end
  return out
end
fake.save_copy = save_copy

--- Saves and loads the game: storage is checked and copied, control.lua runs afresh, the copy
--- is put back as `storage`, then on_load runs. Returns the world.
function World:save_and_load()
  local saved = save_copy(_G.storage, "", {})
  self.logs_before_load = #self.logs
  _G.storage = false
  self:run_control()
  _G.storage = saved
  if self.load_handler then self.load_handler() end
  return self
end

--- A mod update on an existing save: storage kept, control.lua afresh, on_configuration_changed.
function World:update_mod()
  local saved = save_copy(_G.storage, "", {})
  self:run_control()
  _G.storage = saved
  if self.config_handler then self.config_handler({ mod_changes = {} }) end
  return self
end

--- Changes a runtime-global mod setting as the player would, raising the event.
function World:change_setting(name, value)
  self.setting_values[name] = value
  self:raise("on_runtime_mod_setting_changed", { setting = name, setting_type = "runtime-global" })
end

--- The log lines the mod wrote that report an error it caught.
function World:error_logs()
  local out = {}
  for _, l in ipairs(self.logs) do
    if l:find("coop-agent:", 1, true) then out[#out + 1] = l end
  end
  return out
end

--- Builds a world from a scenario table and installs it as the game. Scenario fields (all optional):
--- tick, seed, settings {name = value}, mod_version, forces {name = {enemies, research_progress,
--- recipes}}, research (the player force's current one), surfaces {name = {entity specs}},
--- players {{name, position, connected, surface, inventory, character}}, blocked and
--- hidden_blocked (walls: {left_top, right_bottom, surface?}), path_delay, path_busy,
--- production {input, output}, power {[network id] = {input, output}}, create_fails.
function fake.world(scenario)
  scenario = scenario or {}
  local world = setmetatable({
    scenario = scenario,
    next_unit = 100,
    entity_data = setmetatable({}, { __mode = "k" }),
    surface_entities = {},
    surface_data = {},
    by_unit = {},
    force_specs = {},
    tech_data = {},
    player_data = {},
    player_characters = {},
    players_by_name = {},
    rcon_out = {},
    printed = {},
    force_prints = {},
    player_prints = {},
    renderings = {},
    built = {},
    logs = {},
    handlers = {},
    nth = {},
    commands = {},
    next_path_id = 0,
    path_requests = {},
    path_log = {},
  }, World)
  world.defines = make_defines()
  world.game_data = { tick = scenario.tick or 0 }
  world.prototypes = prototype_tables(world)

  local force_spec = scenario.forces or {
    player = { enemies = { "enemy" } },
    enemy = { enemies = { "player" } },
    neutral = {},
  }
  world.forces = {}
  for name, spec in pairs(force_spec) do world.forces[name] = new_force(world, name, spec) end
  if scenario.research then world.force_specs.player.current = scenario.research end

  world.surfaces = {}
  local surface_names = scenario.surfaces or { nauvis = {} }
  local index = 0
  local names = {}
  for name in pairs(surface_names) do names[#names + 1] = name end
  table.sort(names, function(a, b) return a == "nauvis" or (b ~= "nauvis" and a < b) end)
  for _, name in ipairs(names) do
    index = index + 1
    local s = new_surface(world, name, index, scenario.seed or 123456789)
    world.surfaces[name] = s
    world.surfaces[index] = s
  end
  for name, list in pairs(surface_names) do
    for _, spec in ipairs(list.entities or list) do world.surfaces[name].create_entity(spec) end
  end

  local players = {}
  for i, spec in ipairs(scenario.players or {}) do
    local p = new_player(world, i, spec)
    players[i] = p
    world.players_by_name[spec.name] = p
  end

  local game_get = {
    tick = function() return world.game_data.tick end,
    players = function() return custom_table("LuaCustomTable", players, function(k) return world.players_by_name[k] end) end,
    connected_players = function()
      local out = {}
      for _, p in ipairs(players) do
        if p.connected then out[#out + 1] = p end
      end
      return out
    end,
    surfaces = function()
      local named = {}
      for k, v in pairs(world.surfaces) do
        if type(k) == "string" then named[k] = v end
      end
      return custom_table("LuaCustomTable", named, function(k) return world.surfaces[k] end)
    end,
    forces = function() return custom_table("LuaCustomTable", world.forces) end,
  }
  local game_methods = {
    get_player = function(k)
      if type(k) == "number" then return players[k] end
      return world.players_by_name[k]
    end,
    get_surface = function(k) return world.surfaces[k] end,
    print = function(message, print_settings)
      check_print(message, print_settings)
      world.printed[#world.printed + 1] = { message = message, settings = print_settings }
    end,
    get_entity_by_unit_number = function(n)
      local d = world.by_unit[n]
      return d and d.proxy or nil
    end,
  }
  world.game = lua_object("LuaGameScript", {}, game_get, nil, game_methods)

  world.script = {
    active_mods = { base = "2.0.72", ["coop-agent"] = scenario.mod_version or "0.1.0" },
    on_init = function(f) world.init_handler = f end,
    on_load = function(f) world.load_handler = f end,
    on_configuration_changed = function(f) world.config_handler = f end,
    on_event = function(id, f, filters)
      assert(type(id) == "number", "fake: on_event needs a defines.events id")
      world.handlers[id] = f and { f = f, filters = filters } or nil
    end,
    on_nth_tick = function(n, f)
      assert(type(n) == "number" and n >= 1, "fake: on_nth_tick needs a tick count")
      world.nth[n] = f
    end,
  }
  world.commands_api = {
    add_command = function(name, help, f)
      assert(type(name) == "string" and help ~= nil and type(f) == "function", "fake: add_command(name, help, f)")
      if world.commands[name] then error("Command with name \"" .. name .. "\" already exists", 2) end
      world.commands[name] = { help = help, f = f }
    end,
  }
  world.rcon = {
    print = function(message)
      assert(type(message) == "string", "fake: rcon.print takes a string here")
      world.rcon_out[#world.rcon_out + 1] = message
    end,
  }
  world.helpers = {
    table_to_json = function(t)
      assert(type(t) == "table", "fake: table_to_json takes a table")
      return json.encode(t)
    end,
    json_to_table = function(s) return json.decode(s) end,
  }
  local setting_values = {
    ["coop-agent-body-name"] = "Yui",
    ["coop-agent-host-player"] = "",
  }
  for k, v in pairs(scenario.settings or {}) do setting_values[k] = v end
  world.setting_values = setting_values
  world.settings = {
    global = setmetatable({}, {
      __index = function(_, k)
        local v = setting_values[k]
        if v == nil then return nil end
        return { value = v }
      end,
    }),
  }
  world.rendering = {
    draw_text = function(args)
      assert(args.text and args.surface and args.target and args.color, "fake: draw_text needs text, surface, target, color")
      world.renderings[#world.renderings + 1] = args
      return lua_object("LuaRenderObject", { id = #world.renderings }, { id = field("id"),
        text = function() return args.text end }, { text = function(_, v) args.text = v end })
    end,
  }
  world:install()
  fake.current = world
  return world
end

return fake
