/** Bridge commands of the voice: the engine's API key, write-only (docs/voice.md#settings). */

import { VOICE_KEYS } from "../../src/protocol/voice.ts";
import type { CommandTable } from "../commands.ts";
import type { Store } from "../store/store.ts";

/** Registers voice_key_set and voice_key_status on the table. */
export function registerVoiceCommands(table: CommandTable, store: Store): void {
  table.register("voice_key_set", async ({ presetId, key }) => {
    if (key) store.set(VOICE_KEYS.apiKey(presetId), key, "user");
    else store.delete(VOICE_KEYS.apiKey(presetId));
    return null;
  });
  table.register("voice_key_status", async ({ presetId }) => {
    const v = store.get(VOICE_KEYS.apiKey(presetId));
    return { stored: typeof v === "string" && v.length > 0 };
  });
}
