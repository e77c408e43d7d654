-- Scenario builders shared by the specs: a fresh fake world with the mod started on it.
local fake = require("factorio")

local world = {}

--- The usual map: host alice online at the origin, a few entities around, the mod started.
function world.standard(extra)
  local scenario = {
    players = { { name = "alice", position = { x = 0, y = 0 }, inventory = { ["iron-plate"] = 10 } } },
    surfaces = {
      nauvis = {
        { name = "iron-ore", position = { x = 12.5, y = 0.5 }, amount = 50 },
        { name = "iron-ore", position = { x = 13.5, y = 0.5 }, amount = 50 },
        { name = "tree-01", position = { x = -8, y = 4 } },
        { name = "wooden-chest", position = { x = 5.5, y = 5.5 }, force = "player", inventory = { coal = 20 } },
        { name = "stone-furnace", position = { x = -5, y = -5 }, force = "player", status = 4 },
      },
    },
  }
  for k, v in pairs(extra or {}) do scenario[k] = v end
  local w = fake.world(scenario)
  w:start_mod()
  return w
end

--- The standard world with the body spawned (one tick run) and its entity returned.
function world.with_body(extra)
  local w = world.standard(extra)
  w:tick(1)
  assert(storage.body and storage.body.valid, "the body should spawn next to the host")
  return w, storage.body
end

local counter = 0
--- A fresh write id.
function world.id()
  counter = counter + 1
  return "t-" .. counter
end

return world
