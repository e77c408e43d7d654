/**
 * Bridge commands of listening: the transcription engine's key, write-only (docs/voice.md#listening), kept with
 * the origin of the engine's base URL it is saved for (host/keys.ts): sent only there, dropped when it changes.
 */

import { hasKey } from "../../src/protocol/keys.ts";
import { LISTEN_KEYS } from "../../src/protocol/listen.ts";
import type { CommandTable } from "../commands.ts";
import { bindKey, listenKeyOrigin } from "../keys.ts";
import type { Store } from "../store/store.ts";

/** The listening key command's refusal, written once. */
export const LISTEN_KEY_ERRORS = {
  noBase: "choose the OpenAI-compatible listening engine first: the local engine takes no key",
} as const;

/** Registers listen_key_set and listen_key_status. */
export function registerListenCommands(table: CommandTable, store: Store): void {
  table.register("listen_key_set", async ({ key }) => {
    if (!key) {
      store.delete(LISTEN_KEYS.apiKey, "user");
      return null;
    }
    const origin = listenKeyOrigin(store);
    if (!origin) throw new Error(LISTEN_KEY_ERRORS.noBase);
    store.set(LISTEN_KEYS.apiKey, bindKey(key, [origin]), "user");
    return null;
  });
  table.register("listen_key_status", async () => ({ stored: hasKey(store.get(LISTEN_KEYS.apiKey)) }));
}
