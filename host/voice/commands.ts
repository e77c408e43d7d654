/** Bridge commands of the voice: the engine's API key, write-only (docs/voice.md#settings). */

import { parseCommandArgs } from "../../src/protocol/commands.ts";
import { VOICE_KEYS } from "../../src/protocol/voice.ts";
import type { CommandTable } from "../commands.ts";
import type { Store } from "../store/store.ts";

export function registerVoiceCommands(table: CommandTable, store: Store): void {
  table.register("voice_key_set", async (args) => {
    const { presetId, key } = parseCommandArgs("voice_key_set", args);
    if (key) store.set(VOICE_KEYS.apiKey(presetId), key, "user");
    else store.delete(VOICE_KEYS.apiKey(presetId));
    return null;
  });
  table.register("voice_key_status", async (args) => {
    const v = store.get(VOICE_KEYS.apiKey(parseCommandArgs("voice_key_status", args).presetId));
    return { stored: typeof v === "string" && v.length > 0 };
  });
}
