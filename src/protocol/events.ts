/**
 * The bridge's events (docs/app.md#the-bridge-protocol): their names and payloads. The host sends every one
 * of them; a window may send only WINDOW_EVENTS, which the host relays to every window.
 */
import { z } from "zod";

/** A store change, sent by the host for every write (a secret's change without its value). */
export const STORE_CHANGED_EVENT = "yui://store-changed";
/** A reply addressed to another character, sent by the speaking window after its playback. */
export const CHARACTER_ADDRESSED_EVENT = "yui://character-addressed";
/** A mod's signal handed on by the host's ingress (docs/signals-ingress.md#the-signal-turn). */
export const SIGNAL_EVENT = "yui://signal";

/**
 * A character's face changed in the window playing her reply (docs/avatar.md "Faces relax"): her other stages
 * (the desktop window, the Chat window's) show the same.
 */
export const FACE_EVENT = "yui://face";

/** The app events a window may send to every window; the host's own events (store changes, signals) are not among them. */
export const WINDOW_EVENTS: readonly string[] = [CHARACTER_ADDRESSED_EVENT, FACE_EVENT];

/** An event name as a frame may carry it. */
export const EVENT_NAME = /^yui:\/\/[a-z0-9-]+$/;

/** The `yui://store-changed` payload: a secret's change says only that it changed. */
export type StoreChanged =
  | { key: string; value: unknown; deleted: boolean; who: string; secret?: undefined }
  | { key: string; deleted: boolean; secret: true; value?: undefined; who?: undefined };

/** A character as the addressed event names it. */
export interface CharacterRef {
  id: string;
  name: string;
}

const CharacterRefSchema = z.strictObject({ id: z.string().min(1), name: z.string().min(1) });

/** The payload of `yui://character-addressed`. */
export const CharacterAddressedSchema = z.strictObject({
  /** Identifies the exchange: one user message (or other start) and the addressed turns that follow it. */
  exchange: z.string().min(1),
  /** 1 for the first addressed turn of the exchange, then 2, 3, ... */
  chain: z.int().min(1),
  from: CharacterRefSchema,
  to: CharacterRefSchema,
  /** What the speaking character said (the reply's speech text). */
  text: z.string(),
  /** The speaking turn. */
  turnId: z.string().min(1),
});
export type CharacterAddressed = z.infer<typeof CharacterAddressedSchema>;

/**
 * The payload schema of each event a window may send (WINDOW_EVENTS): the host parses a payload with it before
 * relaying it, and drops one that does not fit, so a window hears only payloads of the event's shape.
 */
/** The payload of `yui://face`: whose face, from which stage, the emotion shown (null: her resting face). */
export const FaceEventSchema = z.strictObject({
  presetId: z.string().min(1).max(64),
  /** The stage that played it (one id per stage), so it does not follow itself. */
  source: z.string().min(1).max(64),
  emotion: z.string().min(1).max(64).nullable(),
});
export type FaceEvent = z.infer<typeof FaceEventSchema>;

export const WINDOW_EVENT_SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  [CHARACTER_ADDRESSED_EVENT]: CharacterAddressedSchema,
  [FACE_EVENT]: FaceEventSchema,
};

/** The `yui://signal` payload: the ingress's signal plus the id the host gives it for claiming. */
export const SignalEventSchema = z.object({
  /** One per handed-on signal: the first window to claim it runs the turn. */
  id: z.string().min(1),
  source: z.string().min(1),
  event_type: z.string().min(1),
  delivery: z.enum(["urgent", "normal"]),
  note: z.string().optional(),
  count: z.int().min(1),
  received_at: z.string(),
  body: z.record(z.string(), z.unknown()),
});
export type SignalEvent = z.infer<typeof SignalEventSchema>;
