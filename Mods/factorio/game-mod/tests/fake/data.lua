-- Prototype data for the fake game: a small slice of vanilla Factorio 2.0 (names, types,
-- stack sizes, mining times, recipes) that the tests' scenarios draw from.
local data = {}

data.items = {
  ["iron-ore"] = { stack_size = 50 },
  ["copper-ore"] = { stack_size = 50 },
  ["stone"] = { stack_size = 50 },
  ["coal"] = { stack_size = 50 },
  ["wood"] = { stack_size = 100 },
  ["iron-plate"] = { stack_size = 100 },
  ["copper-plate"] = { stack_size = 100 },
  ["iron-gear-wheel"] = { stack_size = 100 },
  ["copper-cable"] = { stack_size = 200 },
  ["electronic-circuit"] = { stack_size = 200 },
  ["stone-furnace"] = { stack_size = 50, place_result = "stone-furnace" },
  ["wooden-chest"] = { stack_size = 50, place_result = "wooden-chest" },
  ["iron-chest"] = { stack_size = 50, place_result = "iron-chest" },
  ["transport-belt"] = { stack_size = 100, place_result = "transport-belt" },
  ["small-electric-pole"] = { stack_size = 50, place_result = "small-electric-pole" },
}

-- unit_number: whether the game gives the entity a unit number; inventory: slots of its one
-- inventory (name = what LuaInventory.name reports).
data.entities = {
  ["character"] = { type = "character", unit_number = true, health = 250, mining_speed = 0.5, collides = true },
  ["iron-ore"] = { type = "resource", mining_time = 1, products = { { type = "item", name = "iron-ore", amount = 1 } } },
  ["copper-ore"] = { type = "resource", mining_time = 1, products = { { type = "item", name = "copper-ore", amount = 1 } } },
  ["tree-01"] = { type = "tree", health = 50, mining_time = 0.5, products = { { type = "item", name = "wood", amount = 4 } } },
  ["big-rock"] = { type = "simple-entity", mining_time = 1,
    products = { { type = "item", name = "stone", amount = 20 } } },
  ["cliff"] = { type = "cliff", minable = false },
  ["stone-furnace"] = { type = "furnace", unit_number = true, health = 200, mining_time = 0.2, collides = true,
    products = { { type = "item", name = "stone-furnace", amount = 1 } },
    inventories = { { name = "fuel", slots = 1 }, { name = "furnace_source", slots = 1 }, { name = "furnace_result", slots = 1 } } },
  ["wooden-chest"] = { type = "container", unit_number = true, health = 100, mining_time = 0.1, collides = true,
    products = { { type = "item", name = "wooden-chest", amount = 1 } }, inventories = { { name = "chest", slots = 16 } } },
  ["iron-chest"] = { type = "container", unit_number = true, health = 200, mining_time = 0.1, collides = true,
    products = { { type = "item", name = "iron-chest", amount = 1 } }, inventories = { { name = "chest", slots = 32 } } },
  ["transport-belt"] = { type = "transport-belt", unit_number = true, health = 150, mining_time = 0.1, collides = true,
    products = { { type = "item", name = "transport-belt", amount = 1 } } },
  ["small-electric-pole"] = { type = "electric-pole", unit_number = true, health = 100, mining_time = 0.1,
    collides = true, products = { { type = "item", name = "small-electric-pole", amount = 1 } } },
  ["assembling-machine-1"] = { type = "assembling-machine", unit_number = true, health = 300, mining_time = 0.2,
    collides = true, inventories = { { name = "assembling_machine_input", slots = 4 }, { name = "assembling_machine_output", slots = 1 } } },
  ["rocket-silo"] = { type = "rocket-silo", unit_number = true, health = 5000, collides = true },
  ["small-biter"] = { type = "unit", unit_number = true, health = 15 },
  ["biter-spawner"] = { type = "unit-spawner", unit_number = true, health = 350, collides = true },
  ["small-worm-turret"] = { type = "turret", unit_number = true, health = 200, collides = true },
  ["gun-turret"] = { type = "ammo-turret", unit_number = true, health = 400, collides = true },
}

-- Every entity type the engine knows, whether or not this slice has a prototype of it.
data.entity_types = {}
for _, t in ipairs({ "character", "resource", "tree", "simple-entity", "cliff", "furnace", "container",
  "transport-belt", "electric-pole", "assembling-machine", "rocket-silo", "unit", "unit-spawner", "turret",
  "ammo-turret", "electric-turret", "fluid-turret", "inserter", "mining-drill", "lab", "boiler", "generator",
  "offshore-pump", "pipe", "car", "locomotive", "cargo-wagon", "radar", "wall", "gate", "accumulator",
  "solar-panel", "beacon", "roboport", "logistic-container", "splitter", "underground-belt", "pump",
  "storage-tank", "reactor", "heat-pipe", "spider-vehicle", "segmented-unit", "asteroid" }) do
  data.entity_types[t] = true
end

data.recipes = {
  ["iron-gear-wheel"] = { category = "crafting", energy = 0.5,
    ingredients = { { type = "item", name = "iron-plate", amount = 2 } },
    products = { { type = "item", name = "iron-gear-wheel", amount = 1 } } },
  ["copper-cable"] = { category = "crafting", energy = 0.5,
    ingredients = { { type = "item", name = "copper-plate", amount = 1 } },
    products = { { type = "item", name = "copper-cable", amount = 2 } } },
  ["stone-furnace"] = { category = "crafting", energy = 0.5,
    ingredients = { { type = "item", name = "stone", amount = 5 } },
    products = { { type = "item", name = "stone-furnace", amount = 1 } } },
  ["wooden-chest"] = { category = "crafting", energy = 0.5,
    ingredients = { { type = "item", name = "wood", amount = 2 } },
    products = { { type = "item", name = "wooden-chest", amount = 1 } } },
  ["iron-plate"] = { category = "smelting", energy = 3.2,
    ingredients = { { type = "item", name = "iron-ore", amount = 1 } },
    products = { { type = "item", name = "iron-plate", amount = 1 } } },
  ["electronic-circuit"] = { category = "crafting", energy = 0.5, enabled = false,
    ingredients = { { type = "item", name = "iron-plate", amount = 1 }, { type = "item", name = "copper-cable", amount = 3 } },
    products = { { type = "item", name = "electronic-circuit", amount = 1 } } },
}

data.technologies = {
  ["automation"] = { researched = true },
  ["logistics"] = { researched = false },
  ["electronics"] = { researched = false },
}

return data
