/**
 * Where each key may go (docs/app.md "Security model"): a stored key is sent only to the origins it was saved
 * for, the environment's keys only to the environment's own services.
 */
import type { Preset } from "../src/protocol/preset.ts";

/** The URLs a preset's backend key is sent to: its base URL (proxy, connection test) and push URL (relay). */
export function keyDestinations(preset: Preset): string[] {
  return [preset.backend.base_url, preset.backend.push_url].filter((u): u is string => !!u);
}
