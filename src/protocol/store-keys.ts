/**
 * The store's key table: every key (or key pattern) the host's store accepts, with its zod schema, its default
 * and whether it is a secret, in one explicit list (docs/store.md#the-key-table). The host's store validates
 * every write against it (host/store/schema.ts); the page reads the same keys from its mirror. A new key is a
 * new row here: nothing registers keys at module load.
 */
import { z } from "zod";
import { BackendStatusSchema, UNCHECKED } from "./backend-status.ts";
import {
  BodySettingsSchema,
  DEFAULT_BODY_SETTINGS,
  DEFAULT_DESKTOP_SETTINGS,
  DesktopSettingsSchema,
  PlaceMemorySchema,
} from "./body.ts";
import { DEFAULT_DOZE_SETTINGS, DOZE_KEY, DozeSettingsSchema } from "./doze.ts";
import { HistorySchema } from "./history.ts";
import { StoredKeySchema } from "./keys.ts";
import { DEFAULT_LISTEN_SETTINGS, LISTEN_KEYS, ListenSettingsSchema } from "./listen.ts";
import { LOOK_KEY_PATTERN } from "./looks.ts";
import { DEFAULT_PRESET, PRESET_KEYS, PresetIdSchema, PresetListSchema } from "./preset.ts";
import { emptyRelations, RelationsStateSchema } from "./relations.ts";
import { DEFAULT_VOICE_SETTINGS, GlobalVoiceSchema, VoiceSettingsSchema } from "./voice.ts";

/** One row of the key table. */
export interface KeySpec<T = unknown> {
  /** An exact key (`yui.browser`) or a pattern with `<presetId>` (`yui.<presetId>.relations`). */
  pattern: string;
  schema: z.ZodType<T>;
  /** What a read answers while the key is unset. */
  default: T;
  /** Secrets (API keys) stay in the host: never relayed to a page. */
  secret?: boolean;
  /** One line for docs and `yui store list --all`. */
  doc: string;
}

const Switch = z.strictObject({ enabled: z.boolean() });

/** The store key of rate_limit.addressed_chain_max (docs/store.md). */
export const ADDRESSED_CHAIN_MAX_KEY = "yui.rate_limit.addressed_chain_max";
/** rate_limit.addressed_chain_max when unset: addressed turns in a row after one user message. */
export const DEFAULT_ADDRESSED_CHAIN_MAX = 4;
/** The highest chain cap the setting accepts. */
export const MAX_ADDRESSED_CHAIN = 32;

/** The agent-notify switch's store key: the ingress binds 127.0.0.1:<port, default 8770> while enabled. */
export const AGENT_NOTIFY_KEY = "yui.agent_notify";
/** `{ enabled, port? }` of `yui.agent_notify`. */
export const AgentNotifySchema = z.strictObject({
  enabled: z.boolean(),
  port: z.number().int().min(1024).max(65535).optional(),
});

/** Store key of each switch, by the switch id the tools carry (docs/client-context.md). */
export const SWITCH_KEYS = {
  browser: "yui.browser",
  relations: "yui.relations",
  screen: "yui.screen_capture",
} as const;
export type SwitchId = keyof typeof SWITCH_KEYS;

const row = <T>(spec: KeySpec<T>): KeySpec => spec as KeySpec;

/** Every key the store accepts. */
export const KEY_TABLE: readonly KeySpec[] = [
  row({
    pattern: SWITCH_KEYS.browser,
    schema: Switch,
    default: { enabled: false },
    doc: "The browser tool's switch (runs backend JavaScript in ego lite); off by default.",
  }),
  row({
    pattern: SWITCH_KEYS.relations,
    schema: Switch,
    default: { enabled: true },
    doc: "The Relations switch, one for every preset; on by default.",
  }),
  row({
    pattern: SWITCH_KEYS.screen,
    schema: Switch,
    default: { enabled: false },
    doc: "The screen capture switch (look at: screen); off by default.",
  }),
  row({
    pattern: AGENT_NOTIFY_KEY,
    schema: AgentNotifySchema,
    default: { enabled: false },
    doc: "The agent-notify switch: the loopback ingress (signals, avatar mod) binds 127.0.0.1:port (8770) while on; off by default.",
  }),
  row({
    pattern: PRESET_KEYS.list,
    schema: PresetListSchema,
    default: [DEFAULT_PRESET],
    doc: "Every preset (character): id, name, avatar, voice, persona, backend settings.",
  }),
  row({
    pattern: "yui.<presetId>.backend_check",
    schema: BackendStatusSchema,
    default: UNCHECKED,
    doc: "Whether the preset's backend answered the host's last check (written by the host; docs/desktop.md).",
  }),
  row({
    pattern: PRESET_KEYS.active,
    schema: PresetIdSchema,
    default: DEFAULT_PRESET.id,
    doc: "The preset main shows.",
  }),
  row({
    pattern: PRESET_KEYS.open,
    schema: z.array(PresetIdSchema),
    default: [],
    doc: "The presets open in pet windows, in opening order.",
  }),
  row({
    pattern: "yui.<presetId>.api_key",
    schema: StoredKeySchema,
    default: "",
    secret: true,
    doc: "The preset's backend API key with the origins it was saved for ({key, origins}); host-side only, sent only there.",
  }),
  row({
    pattern: "yui.<presetId>.relations",
    schema: RelationsStateSchema,
    default: emptyRelations(),
    doc: "The preset's relations: values per target, change log, daily spend (docs/signals-ingress.md).",
  }),
  row({
    pattern: ADDRESSED_CHAIN_MAX_KEY,
    schema: z.int().min(0).max(MAX_ADDRESSED_CHAIN),
    default: DEFAULT_ADDRESSED_CHAIN_MAX,
    doc: "rate_limit.addressed_chain_max: addressed turns in a row after one user message; 0 turns them off.",
  }),
  row({
    pattern: "yui.<presetId>.history",
    schema: HistorySchema,
    default: [],
    doc: "The preset's conversation: user and character speech, newest last, at most 200 entries.",
  }),
  row({
    pattern: "yui.<presetId>.voice",
    schema: VoiceSettingsSchema,
    default: DEFAULT_VOICE_SETTINGS,
    doc: "The preset's voice: on/off, engine (local, openai, elevenlabs), base URL, model, voice, format.",
  }),
  row({
    pattern: "yui.<presetId>.voice_api_key",
    schema: StoredKeySchema,
    default: "",
    secret: true,
    doc: "The API key of the preset's voice engine with the origin it was saved for; host-side only, sent only there.",
  }),
  row({
    pattern: "yui.<presetId>.body",
    schema: BodySettingsSchema,
    default: DEFAULT_BODY_SETTINGS,
    doc: "The preset's body on the desktop: the wake timeout after go_to_bed (seconds), reduced motion (no bed scene).",
  }),
  row({
    pattern: "yui.<presetId>.desktop",
    schema: DesktopSettingsSchema,
    default: DEFAULT_DESKTOP_SETTINGS,
    doc: "The preset's manners on the desktop: her size (scale of her window, 0.55 by default) and whether she moves on her own.",
  }),
  row({
    pattern: "yui.<presetId>.place",
    schema: PlaceMemorySchema,
    default: { layouts: {} },
    doc: "Where the preset's character was on the desktop, per monitor layout (written by the host; she comes back there).",
  }),
  row({
    pattern: LOOK_KEY_PATTERN,
    schema: z.int().min(0).max(63).nullable(),
    default: null,
    doc: "Which generated character a preset without a model of its own wears (given by the host when her model is first asked for: one no other preset wears).",
  }),
  row({
    pattern: DOZE_KEY,
    schema: DozeSettingsSchema,
    default: DEFAULT_DOZE_SETTINGS,
    doc: "Dozing on this device: seconds with nothing that concerns a character before she dozes (180), or never.",
  }),
  row({
    pattern: "yui.voice",
    schema: GlobalVoiceSchema,
    default: { muted: false },
    doc: "The global voice mute of quick controls.",
  }),
  row({
    pattern: LISTEN_KEYS.settings,
    schema: ListenSettingsSchema,
    default: DEFAULT_LISTEN_SETTINGS,
    doc: "Listening on this device: hands-free on/off (off by default), the transcription engine, sensitivity, silence, shortest utterance, language.",
  }),
  row({
    pattern: LISTEN_KEYS.apiKey,
    schema: StoredKeySchema,
    default: "",
    secret: true,
    doc: "The API key of the transcription engine with the origin it was saved for; host-side only, sent only there.",
  }),
];
