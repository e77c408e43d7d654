/**
 * The first run's defaults: the default preset's backend from the conventional environment
 * (OPENAI_BASE_URL, OPENAI_MODEL; the key OPENAI_API_KEY stays in the environment and goes only to that base
 * URL: host/keys.ts), else a local Ollama.
 */
import { DEFAULT_PRESET, PRESET_KEYS, type Preset } from "../../src/app/presets/preset.ts";
import type { Store } from "../store/store.ts";

/** The backend a fresh machine uses when the environment names none. */
export const OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1";

/** The default preset for this environment. */
export function defaultPreset(env: NodeJS.ProcessEnv = process.env): Preset {
  const fromEnv = env.OPENAI_BASE_URL?.trim();
  const base = fromEnv || DEFAULT_PRESET.backend.base_url || OLLAMA_BASE_URL;
  // A local Ollama needs a model named: the default preset's (a small one that calls tools).
  const model = env.OPENAI_MODEL?.trim() || (fromEnv ? undefined : DEFAULT_PRESET.backend.model);
  return {
    ...DEFAULT_PRESET,
    backend: { transport: "chat", base_url: base.replace(/\/+$/, ""), ...(model ? { model } : {}) },
  };
}

/** Writes the default preset when the store has none yet (a fresh install); true when it wrote. */
export function seedDefaults(store: Store, env: NodeJS.ProcessEnv = process.env): boolean {
  if (store.has(PRESET_KEYS.list)) return false;
  store.set(PRESET_KEYS.list, [defaultPreset(env)], "app");
  return true;
}
