/**
 * Where each key may go (docs/app.md "Security model"). A stored key is kept with the origins it was saved for
 * (`{key, origins}`, src/protocol/keys.ts) and sent only there: the backend key to the preset's base URL and push
 * URL as they were when it was saved, the voice key to its engine's base. Changing those drops the key until the
 * user enters it again. The environment's keys go only to the environment's own services: OPENAI_API_KEY to
 * OPENAI_BASE_URL (else OpenAI's API), ELEVENLABS_API_KEY to ElevenLabs' API.
 */
import type { Vocabulary } from "../src/app/vocabulary/vocabulary.ts";
import {
  type BoundKey,
  backendKeyOrigins,
  hasKey,
  StoredKeySchema,
  urlOrigin,
} from "../src/protocol/keys.ts";
import {
  DEFAULT_LISTEN_SETTINGS,
  LISTEN_KEYS,
  ListenSettingsSchema,
  listenBase,
} from "../src/protocol/listen.ts";
import { PRESET_KEYS, type Preset, PresetListSchema } from "../src/protocol/preset.ts";
import {
  DEFAULT_VOICE_SETTINGS,
  VOICE_ENGINES,
  VOICE_KEYS,
  type VoiceEngineId,
  type VoiceSettings,
  VoiceSettingsSchema,
} from "../src/protocol/voice.ts";
import { ENGINE_DEFAULTS } from "../src/voice/engines.ts";

/** Where OPENAI_API_KEY goes when OPENAI_BASE_URL is unset: OpenAI's own API. */
export const OPENAI_API_BASE = "https://api.openai.com/v1";
/** The only place ELEVENLABS_API_KEY goes: ElevenLabs' own API. */
export const ELEVENLABS_API_ORIGIN = "https://api.elevenlabs.io";

/** What the key rules read: a store or a window's mirror of it. */
export interface KeyReader {
  get(key: string): unknown;
}

/** The URLs a preset's backend key is sent to: its base URL (proxy, connection test) and push URL (relay). */
export function keyDestinations(preset: Preset): string[] {
  return [preset.backend.base_url, preset.backend.push_url].filter((u): u is string => !!u);
}

/** The origins a backend key saved now is bound to (src/protocol/keys.ts). */
export function presetKeyOrigins(preset: Preset): string[] {
  return backendKeyOrigins(preset.backend);
}

/** Whether `url` is `base` or under it: the same origin, and a path that is the base's or goes on from it. */
export function underBase(url: string, base: string): boolean {
  let u: URL;
  let b: URL;
  try {
    u = new URL(url);
    b = new URL(base);
  } catch {
    return false;
  }
  const path = b.pathname.replace(/\/+$/, "");
  return (
    u.origin === b.origin && (u.pathname.replace(/\/+$/, "") === path || u.pathname.startsWith(`${path}/`))
  );
}

// The key a stored value holds for `destination`: a bound key only toward its origins; a plain string (not bound
// yet) toward where its owner points now (`current`), as the host would bind it.
function keyToward(stored: unknown, destination: string, current: string[]): string | undefined {
  const parsed = StoredKeySchema.safeParse(stored);
  const origin = urlOrigin(destination);
  if (!parsed.success || !origin) return undefined;
  const v = parsed.data;
  if (typeof v === "string") return v && current.includes(origin) ? v : undefined;
  return v.origins.includes(origin) ? v.key : undefined;
}

/** OPENAI_API_KEY toward `destination` when it is the environment's own base URL (or under it). */
export function envBackendKey(env: NodeJS.ProcessEnv, destination: string): string | undefined {
  const key = env.OPENAI_API_KEY?.trim();
  if (!key) return undefined;
  return underBase(destination, env.OPENAI_BASE_URL?.trim() || OPENAI_API_BASE) ? key : undefined;
}

/** The preset's stored backend key toward `destination`, when it was saved for that origin. */
export function storedBackendKey(kv: KeyReader, preset: Preset, destination: string): string | undefined {
  return keyToward(kv.get(PRESET_KEYS.apiKey(preset.id)), destination, presetKeyOrigins(preset));
}

/**
 * The backend key the host sends for a preset to `destination`: the stored key when it was saved for that
 * origin; for a preset with no stored key, OPENAI_API_KEY toward the environment's own base URL; else none.
 */
export function backendKey(
  kv: KeyReader,
  preset: Preset,
  destination: string,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (hasKey(kv.get(PRESET_KEYS.apiKey(preset.id)))) return storedBackendKey(kv, preset, destination);
  return envBackendKey(env, destination);
}

/** A character's voice settings as stored (the defaults while unset or unreadable). */
export function voiceSettingsOf(kv: KeyReader, presetId: string): VoiceSettings {
  const parsed = VoiceSettingsSchema.safeParse(kv.get(VOICE_KEYS.preset(presetId)));
  return { ...DEFAULT_VOICE_SETTINGS, ...(parsed.success ? parsed.data : {}) };
}

/** The engine a character speaks with: its settings', else the vocabulary's when it names one, else local. */
export function voiceEngineOf(settings: VoiceSettings, vocabulary: Vocabulary): VoiceEngineId {
  const fromVocab = (VOICE_ENGINES as readonly string[]).includes(vocabulary.voice.engine)
    ? (vocabulary.voice.engine as VoiceEngineId)
    : undefined;
  return settings.engine ?? fromVocab ?? "local";
}

/** The base URL an engine is called at (none for the local engine). */
export function voiceBase(engine: VoiceEngineId, settings: VoiceSettings): string | undefined {
  if (engine === "local") return undefined;
  return (settings.base_url ?? ENGINE_DEFAULTS[engine].base_url)?.replace(/\/+$/, "");
}

/**
 * The voice key the host sends to an engine at `base`: the stored key when saved for that origin, else
 * OPENAI_API_KEY for the OpenAI-compatible engine at the environment's own base, ELEVENLABS_API_KEY for
 * ElevenLabs at its own API; else none.
 */
export function voiceKey(
  kv: KeyReader,
  presetId: string,
  engine: VoiceEngineId,
  base: string | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (!base) return undefined;
  const stored = kv.get(VOICE_KEYS.apiKey(presetId));
  if (hasKey(stored)) return keyToward(stored, base, [urlOrigin(base) ?? ""]);
  if (engine === "openai") return envBackendKey(env, base);
  if (engine === "elevenlabs" && urlOrigin(base) === ELEVENLABS_API_ORIGIN)
    return env.ELEVENLABS_API_KEY?.trim() || undefined;
  return undefined;
}

/** The origin the device's listening key is bound to now: its OpenAI-compatible engine's base (none: local). */
export function listenKeyOrigin(kv: KeyReader): string | undefined {
  const parsed = ListenSettingsSchema.safeParse(kv.get(LISTEN_KEYS.settings));
  return urlOrigin(listenBase(parsed.success ? parsed.data : DEFAULT_LISTEN_SETTINGS));
}

/**
 * The listening key the host sends to the transcription engine at `base`: the stored key when saved for that
 * origin, else OPENAI_API_KEY toward the environment's own base; none for the local engine.
 */
export function listenKey(
  kv: KeyReader,
  base: string | undefined,
  env: NodeJS.ProcessEnv,
): string | undefined {
  if (!base) return undefined;
  const stored = kv.get(LISTEN_KEYS.apiKey);
  if (hasKey(stored)) return keyToward(stored, base, [urlOrigin(base) ?? ""]);
  return envBackendKey(env, base);
}

/** A key bound to `origins`, as the store keeps it. */
export function bindKey(key: string, origins: string[]): BoundKey {
  return { key, origins };
}

/** What the key bindings watch and change: the host's store. */
export interface KeyStore extends KeyReader {
  set(key: string, value: unknown, who?: string): void;
  delete(key: string, who?: string): boolean;
  onChange(fn: (change: { key: string }) => void): () => void;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

// One key against where it should go now: a plain string is bound to it, a bound key whose origins are no longer
// those is dropped (the user enters it again), a key saved for nowhere is dropped.
function reconcile(store: KeyStore, key: string, origins: string[]): void {
  const stored = store.get(key);
  if (!hasKey(stored)) return;
  const v = StoredKeySchema.parse(stored);
  if (origins.length === 0) store.delete(key, "key-binding");
  else if (typeof v === "string") store.set(key, bindKey(v, origins), "key-binding");
  else if (!sameSet(v.origins, origins)) store.delete(key, "key-binding");
}

const WATCHED = /^yui\.(presets|listen|listen_api_key|[a-z0-9][a-z0-9_-]*\.(api_key|voice|voice_api_key))$/;

/**
 * Keeps every stored key bound to where its preset (or the device's listening engine) points (the host, at start and on every change of a preset,
 * a voice setting or a key, from any process): binds plain strings, drops keys whose destination changed.
 * Returns the unsubscribe.
 */
export function followKeyBindings(store: KeyStore, vocabulary: () => Vocabulary): () => void {
  const check = () => {
    const list = PresetListSchema.safeParse(store.get(PRESET_KEYS.list));
    for (const p of list.success ? list.data : []) {
      reconcile(store, PRESET_KEYS.apiKey(p.id), presetKeyOrigins(p));
      const settings = voiceSettingsOf(store, p.id);
      const origin = urlOrigin(voiceBase(voiceEngineOf(settings, vocabulary()), settings));
      reconcile(store, VOICE_KEYS.apiKey(p.id), origin ? [origin] : []);
    }
    const listen = listenKeyOrigin(store);
    reconcile(store, LISTEN_KEYS.apiKey, listen ? [listen] : []);
  };
  check();
  let queued = false;
  return store.onChange((c) => {
    if (!WATCHED.test(c.key) || queued) return;
    // After the change's own listeners, before any other request is read: no request sees a key unbound.
    queued = true;
    queueMicrotask(() => {
      queued = false;
      check();
    });
  });
}
