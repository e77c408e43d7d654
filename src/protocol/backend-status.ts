/**
 * Whether a character's backend answers (docs/desktop.md "The first run"): the host checks each open
 * character's backend at start and again while it does not answer (host/backend-check.ts) and writes what it
 * found here; her window says what to do while it is down, and the tray keeps a sign until it answers.
 */
import { z } from "zod";

/** `yui.<presetId>.backend_check`: the last check of that character's backend, written by the host. */
export const backendStatusKey = (presetId: string) => `yui.${presetId}.backend_check`;

export const BackendStatusSchema = z.strictObject({
  /** Her backend answered (any HTTP answer of `<base_url>/models`), or she has a push backend. */
  ok: z.boolean(),
  /** The base URL checked ("" when there is none). */
  base_url: z.string().max(2048),
  /** Why it does not answer ("connection refused", "no base URL"); "" when it does. */
  reason: z.string().max(300),
});
export type BackendStatus = z.infer<typeof BackendStatusSchema>;

/** Nothing checked yet: no sign. */
export const UNCHECKED: BackendStatus = { ok: true, base_url: "", reason: "" };

/** The model a local Ollama is asked for when the default preset names none (tool calling, small). */
export const DEFAULT_OLLAMA_MODEL = "qwen2.5:3b";
