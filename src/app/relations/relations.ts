/**
 * Relations: per preset, one directed integer per target (the user or another preset), -20..20 from 0,
 * moved by the backend through rate_relation and by the user's slider; never by the client on its own.
 * Pure functions over the stored shape `yui.<presetId>.relations` (docs/signals-ingress.md); no I/O here.
 */
import {
  type Band,
  DAILY_CAP,
  LOG_MAX,
  RELATION_MAX,
  RELATION_MIN,
  type RelationChange,
  type RelationsState,
  USER_REASON,
} from "../../protocol/relations.ts";

// The stored shape and its limits are the host–page contract's (src/protocol/relations.ts).
export {
  BANDS,
  type Band,
  DAILY_CAP,
  emptyRelations,
  isReservedReason,
  LOG_MAX,
  RELATION_MAX,
  RELATION_MIN,
  type RelationChange,
  RelationChangeSchema,
  type RelationsState,
  RelationsStateSchema,
  relationsKey,
  USER_REASON,
  USER_TARGET,
  WHY_MAX,
} from "../../protocol/relations.ts";

/** The band of a value, by plain comparison: hostile ≤ -12, cold ≤ -4, neutral, warm ≥ 4, close ≥ 12. */
export function band(value: number): Band {
  if (value <= -12) return "hostile";
  if (value <= -4) return "cold";
  if (value >= 12) return "close";
  if (value >= 4) return "warm";
  return "neutral";
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
