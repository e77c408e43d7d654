import { quoteInput } from "@yui/mod-kit";

// Every fixed string the Mod says to the agent or the user, written once; tests assert from here.

/** Config and RCON setup messages. */
export const CONFIG_MESSAGES = {
  configIniMissingFile: (path: string) =>
    `Factorio's config.ini was not found at ${path} (config_ini in config.toml); RCON only listens while the game is hosted`,
  configIniMissingKey: (key: string, path: string) =>
    `${key} is missing or commented out under [other] in ${path}; set it (e.g. local-rcon-socket=127.0.0.1:27015 and local-rcon-password=...) and host the game: RCON only listens while the game is hosted`,
  configIniBadSocket: (value: string, path: string) =>
    `local-rcon-socket=${quoteInput(value)} in ${path} is not HOST:PORT or PORT`,
  configTomlMissing: (path: string) => `config.toml was not found at ${path} (FACTORIO_CONFIG_TOML)`,
  configTomlInvalid: (path: string, detail: string) => `config.toml at ${path} is invalid: ${detail}`,
} as const;

/** Tool error texts that are not the game mod's own error messages. */
export const TOOL_MESSAGES = {
  notGameMod: "the coop-agent game mod did not answer; is it enabled in this save?",
  idConflict: (id: string) =>
    `id_conflict: write ${id} already ran with different arguments in the game; it was not run again and will not be re-sent under a new id`,
  lostAndMapChanged: "the reply was lost and the map changed since; the write was not re-sent",
  lostUnconfirmed: (reason: string) =>
    `the reply was lost and the game is not answering (${reason}); the write may or may not have run`,
  lostTwice: "the reply was lost twice; the write may or may not have run (factorio_jobs shows the queue)",
  mapChanged: "the game changed map while the call ran; the Mod adopted the new map, call again",
  /** The game mod's error; its message often quotes the agent's argument, so at most 200 characters of it. */
  gameError: (code: string, message: string, field?: string) =>
    field
      ? `${code}: ${quoteInput(message)} (field ${quoteInput(field)})`
      : `${code}: ${quoteInput(message)}`,
} as const;
