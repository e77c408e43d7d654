-- Runtime-global settings: the body's name and which player counts as the host.
data:extend({
  {
    type = "string-setting",
    name = "coop-agent-body-name",
    setting_type = "runtime-global",
    default_value = "Yui",
    order = "a",
  },
  {
    -- Empty means the first player of the save (index 1), which is the hosting player on a
    -- game hosted from the client; a headless server names its host here.
    type = "string-setting",
    name = "coop-agent-host-player",
    setting_type = "runtime-global",
    default_value = "",
    allow_blank = true,
    order = "b",
  },
})
