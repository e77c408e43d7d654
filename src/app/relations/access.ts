/**
 * Relations over a key-value store (the host's store, or a window's mirror of it): the switch, the state,
 * the `toward` entries and the turn's `relation:` line (docs/relations.md).
 */
import {
  type Choice,
  characterChoices,
  type KeyValue,
  type PresetRef,
  USER_LABEL,
} from "../presets/presets.ts";
import {
  emptyRelations,
  type RelationsState,
  RelationsStateSchema,
  relationLine,
  relationsKey,
  USER_TARGET,
} from "./relations.ts";

/** The store key of the Relations switch (one for every preset). */
export const RELATIONS_SWITCH_KEY = "yui.relations";

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

/** rate_relation's `toward` entries: `user` (the human), then the other open presets' names. */
export function towardChoices(open: PresetRef[], selfId: string): Choice[] {
  return [{ label: USER_LABEL, id: USER_TARGET }, ...characterChoices(open, selfId)];
}

/** The `relation:` line of a turn of `presetId`'s window, or null while the Relations switch is off. */
export function relationLineFor(kv: KeyValue, presetId: string, open: PresetRef[]): string | null {
  return relationLine(loadRelations(kv, presetId), towardChoices(open, presetId), relationsEnabled(kv));
}
