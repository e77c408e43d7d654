/**
 * A preset is a character: id, name, avatar, voice, persona and backend settings (docs/store.md), the value of
 * `yui.presets`, part of the host–page contract (docs/architecture.md).
 * API keys never live in a preset: they sit host-side under `yui.<presetId>.api_key`, a secret key
 * the host never relays to a page, so a preset can be shown to any window as is.
 */
import { z } from "zod";
import { DEFAULT_OLLAMA_MODEL } from "./backend-status.ts";

/** The id grammar as a regex source, shared with the store's `<presetId>` key patterns. */
export const PRESET_ID_SOURCE = "[a-z0-9][a-z0-9_-]{0,63}";

/**
 * Ids that would read as something else: `user` is the human in relations, the others are store key
 * segments (`yui.presets`, `yui.browser`, ...), so a preset id can never shadow them.
 */
export const RESERVED_PRESET_IDS: readonly string[] = [
  "user",
  "presets",
  "browser",
  "relations",
  "screen_capture",
  "rate_limit",
];

/** A preset id: lower-case slug, not reserved. */
export const PresetIdSchema = z
  .string()
  .regex(new RegExp(`^${PRESET_ID_SOURCE}$`), "a preset id is a lower-case slug (a-z, 0-9, _ and -)")
  .refine((id) => !RESERVED_PRESET_IDS.includes(id), "this preset id is reserved");

/** The transports a preset's backend speaks (spec: Declaration per transport). */
export const TRANSPORTS = ["chat", "responses", "push"] as const;
export type Transport = (typeof TRANSPORTS)[number];

/**
 * A URL the host or the engine connects to: one of `protocol`, never a #fragment (the push relay's WebSocket
 * cannot dial one); a base URL, which paths are added to, takes no ?query either (a base ending in `?` turned
 * every proxied call into a GET of the base itself).
 */
export function endpointUrl(protocol: RegExp, kind: "base" | "endpoint") {
  return z
    .url({ protocol })
    .max(2048)
    .refine((u) => !u.includes("#"), "a URL here takes no #fragment")
    .refine(
      (u) => kind === "endpoint" || !u.includes("?"),
      "a base URL takes no ?query: paths are added to it",
    );
}

const WEB = /^(https?|wss?)$/;

/** Backend settings; no API key here (see module doc). */
export const BackendSchema = z.strictObject({
  transport: z.enum(TRANSPORTS),
  base_url: endpointUrl(WEB, "base").optional(),
  model: z.string().max(200).optional(),
  push_url: endpointUrl(WEB, "endpoint").optional(),
  /** Deprecated: removed in v0.6.0, replaced by the client-declared tool. */
  broker_base_url: endpointUrl(WEB, "base").optional(),
});
export type Backend = z.infer<typeof BackendSchema>;

/** One character. Strict: an unknown field (an `api_key`, say) is refused rather than kept. */
export const PresetSchema = z.strictObject({
  id: PresetIdSchema,
  name: z.string().trim().min(1).max(64),
  /** The VRM model: a path or URL. */
  avatar: z.string().max(4096).default(""),
  /** The voice id of the voice engine. */
  voice: z.string().max(200).default(""),
  persona: z.string().max(20_000).default(""),
  backend: BackendSchema,
});
export type Preset = z.infer<typeof PresetSchema>;

/** The preset list, ids unique. */
export const PresetListSchema = z.array(PresetSchema).superRefine((list, ctx) => {
  const seen = new Set<string>();
  for (const [i, p] of list.entries()) {
    if (seen.has(p.id))
      ctx.addIssue({ code: "custom", path: [i, "id"], message: `duplicate preset id ${p.id}` });
    seen.add(p.id);
  }
});

/** A character with the default model, no voice name and no persona, talking to `backend`. */
export function characterPreset(id: string, name: string, backend: Backend = { transport: "chat" }): Preset {
  return { id, name, avatar: "", voice: "", persona: "", backend };
}

/** The first run's only preset, so main always has a character to show. */
export const DEFAULT_PRESET: Preset = characterPreset("yui", "YUI", {
  transport: "chat",
  base_url: "http://127.0.0.1:11434/v1",
  model: DEFAULT_OLLAMA_MODEL,
});

/** Store keys for presets (documented in docs/store.md). */
export const PRESET_KEYS = {
  list: "yui.presets",
  active: "yui.presets.active",
  open: "yui.presets.open",
  apiKey: (presetId: string) => `yui.${presetId}.api_key`,
} as const;
