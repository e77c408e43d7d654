/** Bridge commands of listening: the transcription engine's key, write-only (docs/voice.md#listening). */

import { parseCommandArgs } from "../../src/protocol/commands.ts";
import { LISTEN_KEYS } from "../../src/protocol/listen.ts";
import type { CommandTable } from "../commands.ts";
import type { Store } from "../store/store.ts";

/** Registers listen_key_set and listen_key_status. */
export function registerListenCommands(table: CommandTable, store: Store): void {
  table.register("listen_key_set", async (args) => {
    const { key } = parseCommandArgs("listen_key_set", args);
    if (key) store.set(LISTEN_KEYS.apiKey, key, "user");
    else store.delete(LISTEN_KEYS.apiKey);
    return null;
  });
  table.register("listen_key_status", async () => {
    const v = store.get(LISTEN_KEYS.apiKey);
    return { stored: typeof v === "string" && v.length > 0 };
  });
}
