/**
 * Relations over a key-value store (the host's store, or a window's mirror of it): the switch, the state,
 * the `toward` entries and the turn's `relation:` line (docs/relations.md).
 */

import type { ParsedCommandArgs, RELATION_RATE_COMMAND } from "../../protocol/commands.ts";
import type { RatingAnswer } from "../../protocol/relations.ts";
import { SWITCH_KEYS } from "../../protocol/store-keys.ts";
import {
  type Choice,
  characterChoices,
  type KeyValue,
  type PresetRef,
  USER_LABEL,
} from "../presets/presets.ts";
import {
  applyRating,
  type Band,
  band,
  emptyRelations,
  type RelationChange,
  type RelationsState,
  RelationsStateSchema,
  relationLine,
  relationsKey,
  relationValue,
  setByUser,
  USER_TARGET,
} from "./relations.ts";

/** A KeyValue that can also read-modify-write one key atomically (the host's Store). */
export interface UpdatableKeyValue extends KeyValue {
  update<T>(key: string, fn: (current: T) => T, who?: string): T;
}

function updatable(kv: KeyValue): kv is UpdatableKeyValue {
  return typeof (kv as Partial<UpdatableKeyValue>).update === "function";
}

/** The store key of the Relations switch (one for every preset). */
export const RELATIONS_SWITCH_KEY = SWITCH_KEYS.relations;

/** Whether the Relations switch is on (on by default). */
export function relationsEnabled(kv: KeyValue): boolean {
  const v = kv.get(RELATIONS_SWITCH_KEY) as { enabled?: unknown } | undefined;
  return v?.enabled !== false;
}

/** A preset's relations, or a fresh state when none (or an unreadable one) is stored. */
export function loadRelations(kv: KeyValue, presetId: string): RelationsState {
  const parsed = RelationsStateSchema.safeParse(kv.get(relationsKey(presetId)));
  return parsed.success ? parsed.data : emptyRelations();
}

/** Writes a preset's relations; `who` travels with the store change. */
export function saveRelations(kv: KeyValue, presetId: string, state: RelationsState, who: string): void {
  kv.set(relationsKey(presetId), state, who);
}

/**
 * Changes a preset's relations through `fn` in one step: on the host's store one `BEGIN IMMEDIATE` transaction
 * (no other process interleaves); on a plain in-process key-value, a synchronous read then write (nothing in this
 * process can interleave). Never hand it a window's mirror of the store: the mirror's write reaches the host later,
 * so two windows would read the same value and one write would be lost; windows ask the host (`relation_rate`,
 * `relation_set_by_user`). `fn` handing back its argument itself writes nothing.
 */
export function modifyRelations(
  kv: KeyValue,
  presetId: string,
  fn: (state: RelationsState) => RelationsState,
  who: string,
): RelationsState {
  if (updatable(kv)) return kv.update<RelationsState>(relationsKey(presetId), fn, who);
  const current = loadRelations(kv, presetId);
  const next = fn(current);
  if (next !== current) saveRelations(kv, presetId, next, who);
  return next;
}

/** The user's slider in settings → Character → Relations: one logged jump, no cap spent, held by the range. */
export function setRelationByUser(
  kv: KeyValue,
  presetId: string,
  target: string,
  value: number,
  now: number = Date.now(),
): RelationsState {
  return modifyRelations(kv, presetId, (s) => setByUser(s, target, value, now), "user");
}

/**
 * One rate_relation change, as the window hands it to where the value is stored: the contract's `relation_rate`
 * arguments (the rating character's preset, the target, a delta of -2, -1, 1 or 2, a why of at most 80
 * characters that is never the reserved reason, and the turn of the call).
 */
export type RatingRequest = ParsedCommandArgs<typeof RELATION_RATE_COMMAND>;

/** What the place that stores the value decided (the `relation_rate` answer, src/protocol/relations.ts). */
export type { RatingAnswer };

/** The clock of a rating: epoch ms, and the IANA zone of the local calendar day (the daily cap). */
export interface RatingClock {
  now: number;
  timeZone: string;
}

/** This process's clock and time zone (the host's: the user's computer). */
export function systemClock(): RatingClock {
  return { now: Date.now(), timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone };
}

/**
 * rate_relation's change, decided where the value is stored, in one step (`modifyRelations`: one `BEGIN
 * IMMEDIATE` transaction on the host's store): the Relations switch, the daily cap on the local calendar day, the
 * clamp to -20..20, the log entry and the band. A step cut to nothing writes nothing. The once-per-turn rule is
 * the window's (its turns live there).
 */
export function rateRelation(
  kv: KeyValue,
  req: RatingRequest,
  clock: RatingClock = systemClock(),
): RatingAnswer {
  let answer: RatingAnswer | undefined;
  const step = {
    target: req.target,
    delta: req.delta,
    why: req.why,
    now: clock.now,
    timeZone: clock.timeZone,
  };
  modifyRelations(
    kv,
    req.presetId,
    (state) => {
      // Read inside the same transaction: a switch turned off before this change commits refuses it.
      if (!relationsEnabled(kv)) {
        answer = { off: true };
        return state;
      }
      const outcome = applyRating(state, req.turn === undefined ? step : { ...step, turn: req.turn });
      answer = { off: false, band: outcome.band, clamped: outcome.clamped, applied: outcome.applied };
      return outcome.state;
    },
    "backend",
  );
  if (!answer) throw new Error("the relations store did not run the change");
  return answer;
}

/** The band of a preset toward a target (the quick controls' preset row shows it toward `user`). */
export function bandToward(kv: KeyValue, presetId: string, target: string = USER_TARGET): Band {
  return band(relationValue(loadRelations(kv, presetId), target));
}

/** rate_relation's `toward` entries: `user` (the human), then the other open presets' names. */
export function towardChoices(open: PresetRef[], selfId: string): Choice[] {
  return [{ label: USER_LABEL, id: USER_TARGET }, ...characterChoices(open, selfId)];
}

/** The `relation:` line of a turn of `presetId`'s window, or null while the Relations switch is off. */
export function relationLineFor(kv: KeyValue, presetId: string, open: PresetRef[]): string | null {
  return relationLine(loadRelations(kv, presetId), towardChoices(open, presetId), relationsEnabled(kv));
}

/** One row of the settings' Relations section: a target, its value and band, and its latest changes. */
export interface RelationRow {
  id: string;
  label: string;
  value: number;
  band: Band;
  /** Newest first: who moved it, from what to what, and why (the reasons are written for the user). */
  changes: RelationChange[];
}

/** The rows the settings show for a preset: every `toward` target open now, with up to `recent` changes each. */
export function relationRows(kv: KeyValue, presetId: string, open: PresetRef[], recent = 5): RelationRow[] {
  const state = loadRelations(kv, presetId);
  return towardChoices(open, presetId).map(({ id, label }) => {
    const value = relationValue(state, id);
    const changes = state.log
      .filter((c) => c.target === id)
      .slice(-recent)
      .reverse();
    return { id, label, value, band: band(value), changes };
  });
}
