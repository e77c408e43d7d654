/** Bridge commands of the voice: the engine's API key, write-only (docs/voice.md#settings). */

import { VOICE_KEYS } from "../../src/voice/settings.ts";
import type { CommandTable } from "../commands.ts";
import type { Store } from "../store/store.ts";

export function registerVoiceCommands(table: CommandTable, store: Store): void {
  const presetIdOf = (args: unknown) => {
    const id = (args as { presetId?: unknown })?.presetId;
    if (typeof id !== "string" || !/^[a-z0-9][a-z0-9_-]{0,63}$/.test(id))
      throw new Error("presetId is required");
    return id;
  };
  table.register("voice_key_set", async (args) => {
    const id = presetIdOf(args);
    const key = (args as { key?: unknown }).key;
    if (typeof key !== "string") throw new Error("key must be a string");
    if (key) store.set(VOICE_KEYS.apiKey(id), key, "user");
    else store.delete(VOICE_KEYS.apiKey(id));
    return null;
  });
  table.register("voice_key_status", async (args) => {
    const v = store.get(VOICE_KEYS.apiKey(presetIdOf(args)));
    return { stored: typeof v === "string" && v.length > 0 };
  });
}
