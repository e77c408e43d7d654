/**
 * Relations: per preset, one directed integer per target (the user or another preset), -20..20 from 0,
 * moved by the backend through rate_relation and by the user's slider; never by the client on its own.
 * Pure functions over the stored shape `yui.<presetId>.relations` (docs/signals-ingress.md); no I/O here.
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

export const BANDS = ["hostile", "cold", "neutral", "warm", "close"] as const;
export type Band = (typeof BANDS)[number];

/** The band of a value, by plain comparison: hostile ≤ -12, cold ≤ -4, neutral, warm ≥ 4, close ≥ 12. */
export function band(value: number): Band {
  if (value <= -12) return "hostile";
  if (value <= -4) return "cold";
  if (value >= 12) return "close";
  if (value >= 4) return "warm";
  return "neutral";
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

/** The local calendar day (YYYY-MM-DD) of `now` in `timeZone` (an IANA name; an unknown one means the system's). */
export function localDay(now: number, timeZone: string): string {
  const options: Intl.DateTimeFormatOptions = { year: "numeric", month: "2-digit", day: "2-digit" };
  let format: Intl.DateTimeFormat;
  try {
    format = new Intl.DateTimeFormat("en-US", { ...options, timeZone });
  } catch {
    // An unknown zone name (a bad setting) must not break the tool: the system's zone is the best guess.
    format = new Intl.DateTimeFormat("en-US", options);
  }
  const parts = format.formatToParts(new Date(now));
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")}`;
}

/** The value toward a target (0 when never moved). */
export function relationValue(state: RelationsState, target: string): number {
  return state.values[target] ?? 0;
}

/** Whether a `why` is the reason reserved for the user's slider (compared trimmed, any case). */
export function isReservedReason(why: string): boolean {
  return why.trim().toLowerCase() === USER_REASON;
}

function appendLog(log: RelationChange[], entry: RelationChange): RelationChange[] {
  const next = [...log, entry];
  return next.length > LOG_MAX ? next.slice(next.length - LOG_MAX) : next;
}

/** What a rating did: `clamped` when the daily cap or the range cut the step (possibly to nothing). */
export interface RatingOutcome {
  state: RelationsState;
  band: Band;
  clamped: boolean;
  /** The change actually applied (0 when cut to nothing). */
  applied: number;
}

/** A rate_relation step: the cap and the range cut it to what fits; a step cut to nothing is not logged. */
export function applyRating(
  state: RelationsState,
  step: { target: string; delta: number; why: string; now: number; timeZone: string; turn?: string },
): RatingOutcome {
  const { target, delta, now } = step;
  const from = relationValue(state, target);
  const day = localDay(now, step.timeZone);
  const prior = state.spent[target];
  const spentToday = prior && prior.day === day ? prior.points : 0;
  const capRoom = Math.max(0, DAILY_CAP - spentToday);
  const rangeRoom = delta > 0 ? RELATION_MAX - from : from - RELATION_MIN;
  const size = Math.max(0, Math.min(Math.abs(delta), capRoom, rangeRoom));
  const clamped = size < Math.abs(delta);
  if (size === 0) return { state, band: band(from), clamped, applied: 0 };
  const to = from + Math.sign(delta) * size;
  const entry: RelationChange = { at: now, target, from, to, why: step.why, who: "backend" };
  if (step.turn !== undefined) entry.turn = step.turn;
  const next: RelationsState = {
    values: { ...state.values, [target]: to },
    log: appendLog(state.log, entry),
    spent: { ...state.spent, [target]: { day, points: spentToday + size } },
  };
  return { state: next, band: band(to), clamped, applied: to - from };
}

/** The user's slider: one logged jump with the reserved reason, held only by the range, spending no cap. */
export function setByUser(state: RelationsState, target: string, value: number, now: number): RelationsState {
  if (!Number.isFinite(value)) throw new RangeError("a relation value is a number");
  const to = Math.min(RELATION_MAX, Math.max(RELATION_MIN, Math.round(value)));
  const from = relationValue(state, target);
  if (to === from) return state;
  return {
    values: { ...state.values, [target]: to },
    log: appendLog(state.log, { at: now, target, from, to, why: USER_REASON, who: "user" }),
    spent: state.spent,
  };
}

/** One target as the relation: line names it: its id and the label the tool's enum uses. */
export interface RelationTarget {
  id: string;
  label: string;
}

/**
 * The turn's `relation:` line (docs/relations.md): the band toward each listed target, or null while the
 * Relations switch is off (the turn then carries no relation: line).
 */
export function relationLine(
  state: RelationsState,
  targets: RelationTarget[],
  enabled: boolean,
): string | null {
  if (!enabled || targets.length === 0) return null;
  return `relation: ${targets.map((t) => `${t.label} ${band(relationValue(state, t.id))}`).join(", ")}`;
}
