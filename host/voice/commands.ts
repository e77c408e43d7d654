/**
 * Bridge commands of the voice: the engine's API key, write-only (docs/voice.md#settings), kept with the origin
 * of the engine's base URL it is saved for (host/keys.ts): sent only there, dropped when the base changes.
 */

import type { Vocabulary } from "../../src/app/vocabulary/vocabulary.ts";
import { hasKey, urlOrigin } from "../../src/protocol/keys.ts";
import { VOICE_KEYS } from "../../src/protocol/voice.ts";
import type { CommandTable } from "../commands.ts";
import { bindKey, voiceBase, voiceEngineOf, voiceSettingsOf } from "../keys.ts";
import type { Store } from "../store/store.ts";

/** The voice key command's refusal, written once. */
export const VOICE_KEY_ERRORS = {
  noBase: "choose the OpenAI-compatible or ElevenLabs engine first: the local voice takes no key",
} as const;

/** Registers voice_key_set and voice_key_status on the table. */
export function registerVoiceCommands(table: CommandTable, store: Store, vocabulary: () => Vocabulary): void {
  table.register("voice_key_set", async ({ presetId, key }) => {
    if (!key) {
      store.delete(VOICE_KEYS.apiKey(presetId), "user");
      return null;
    }
    const settings = voiceSettingsOf(store, presetId);
    const origin = urlOrigin(voiceBase(voiceEngineOf(settings, vocabulary()), settings));
    if (!origin) throw new Error(VOICE_KEY_ERRORS.noBase);
    store.set(VOICE_KEYS.apiKey(presetId), bindKey(key, [origin]), "user");
    return null;
  });
  table.register("voice_key_status", async ({ presetId }) => {
    const v = store.get(VOICE_KEYS.apiKey(presetId));
    return { stored: hasKey(v) };
  });
}
