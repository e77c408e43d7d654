/**
 * The relations as stored (`yui.<presetId>.relations`, docs/signals-ingress.md#relations-store-shape) and the
 * wire shapes of a rate_relation change (`relation_rate`). The rules over them are src/app/relations/.
 */
import { z } from "zod";

export const RELATION_MIN = -20;
export const RELATION_MAX = 20;
/** Points of change per target per local calendar day (sum of accepted absolute deltas). */
export const DAILY_CAP = 4;
/** `why` is kept to this many characters. */
export const WHY_MAX = 80;
/** How many change log entries a preset keeps (oldest dropped first). */
export const LOG_MAX = 500;
/** The target id of the human. Preset ids can never be `user` (RESERVED_PRESET_IDS). */
export const USER_TARGET = "user";
/** The reason logged for the user's slider, reserved for the user (rate_relation answers error: reserved reason). */
export const USER_REASON = "set by the user";
/** rate_relation's steps. */
export const DELTAS = [-2, -1, 1, 2] as const;

export const BANDS = ["hostile", "cold", "neutral", "warm", "close"] as const;
export type Band = (typeof BANDS)[number];

/** Whether a `why` is the reason reserved for the user's slider (compared trimmed, any case). */
export function isReservedReason(why: string): boolean {
  return why.trim().toLowerCase() === USER_REASON;
}

const Value = z.int().min(RELATION_MIN).max(RELATION_MAX);

/** One logged change: who moved which target from what to what, and why. */
export const RelationChangeSchema = z.strictObject({
  /** Epoch ms. */
  at: z.number().int().nonnegative(),
  target: z.string().min(1),
  from: Value,
  to: Value,
  // Characters (code points), as the tool keeps them, not UTF-16 units: 80 emoji are 80 characters.
  why: z.string().refine((w) => [...w].length <= WHY_MAX, `at most ${WHY_MAX} characters`),
  /** `backend` for a rate_relation call, `user` for the slider. */
  who: z.enum(["backend", "user"]),
  /** The turn of a rate_relation call. */
  turn: z.string().optional(),
});
export type RelationChange = z.infer<typeof RelationChangeSchema>;

/** The stored shape of `yui.<presetId>.relations`. */
export const RelationsStateSchema = z.strictObject({
  /** target id → value; a missing target is 0. */
  values: z.record(z.string().min(1), Value).default({}),
  /** Oldest first, at most LOG_MAX entries. */
  log: z.array(RelationChangeSchema).max(LOG_MAX).default([]),
  /** target id → points spent on `day` (the local calendar day, YYYY-MM-DD) by rate_relation. */
  spent: z
    .record(z.string().min(1), z.strictObject({ day: z.iso.date(), points: z.int().min(0).max(DAILY_CAP) }))
    .default({}),
});
export type RelationsState = z.infer<typeof RelationsStateSchema>;

/** A fresh state: every target at 0, nothing logged, nothing spent. */
export function emptyRelations(): RelationsState {
  return { values: {}, log: [], spent: {} };
}

/** The store key of a preset's relations. */
export function relationsKey(presetId: string): string {
  return `yui.${presetId}.relations`;
}

/** What the place that stores the value decided for one rating: the switch was off, or the band after it. */
export const RatingAnswerSchema = z.union([
  z.object({ off: z.literal(true) }),
  z.object({
    off: z.literal(false),
    band: z.enum(BANDS),
    /** The daily cap or the range cut the step (possibly to nothing: then nothing was logged or written). */
    clamped: z.boolean(),
    /** The change applied. */
    applied: z.int(),
  }),
]);
export type RatingAnswer = z.infer<typeof RatingAnswerSchema>;
