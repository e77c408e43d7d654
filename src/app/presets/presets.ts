/**
 * Presets over a key-value store: the list, the active preset (main's character) and the open pet presets.
 * Portable (no Node APIs): the host runs it on its store, tests on any KeyValue.
 */
import { DEFAULT_PRESET, PRESET_KEYS, type Preset, PresetSchema } from "./preset.ts";

/** The slice of the store these modules need; the host's Store satisfies it. */
export interface KeyValue {
  get(key: string): unknown;
  set(key: string, value: unknown, who?: string): void;
}

/** A preset as the tools and context lines name it. */
export interface PresetRef {
  id: string;
  name: string;
}

/** Every preset, in the user's order. */
export function listPresets(kv: KeyValue): Preset[] {
  const list = kv.get(PRESET_KEYS.list);
  return Array.isArray(list) && list.length > 0 ? (list as Preset[]) : [DEFAULT_PRESET];
}

/** One preset by id, or undefined. */
export function getPreset(kv: KeyValue, id: string): Preset | undefined {
  return listPresets(kv).find((p) => p.id === id);
}

/** Adds a preset or replaces the one with its id; throws (zod) on an invalid preset. */
export function savePreset(kv: KeyValue, preset: Preset, who = "app"): Preset {
  const parsed = PresetSchema.parse(preset);
  const list = listPresets(kv);
  const i = list.findIndex((p) => p.id === parsed.id);
  const next = i >= 0 ? list.map((p, j) => (j === i ? parsed : p)) : [...list, parsed];
  kv.set(PRESET_KEYS.list, next, who);
  return parsed;
}

/** Removes a preset (and closes its pet window); the last preset cannot be removed. */
export function removePreset(kv: KeyValue, id: string, who = "app"): boolean {
  const list = listPresets(kv);
  if (!list.some((p) => p.id === id)) return false;
  if (list.length === 1) throw new Error("the last preset cannot be removed");
  const rest = list.filter((p) => p.id !== id);
  kv.set(PRESET_KEYS.list, rest, who);
  if (activePresetId(kv) === id) kv.set(PRESET_KEYS.active, rest[0]!.id, who);
  closePet(kv, id, who);
  return true;
}

/** Main's preset: the stored active id if it still exists, else the first preset. */
export function activePresetId(kv: KeyValue): string {
  const list = listPresets(kv);
  const id = kv.get(PRESET_KEYS.active);
  return typeof id === "string" && list.some((p) => p.id === id) ? id : list[0]!.id;
}

/** Makes `id` main's preset; a pet window showing it closes (a preset shows in one window at a time). */
export function setActivePreset(kv: KeyValue, id: string, who = "app"): void {
  if (!getPreset(kv, id)) throw new Error(`unknown preset ${id}`);
  kv.set(PRESET_KEYS.active, id, who);
  closePet(kv, id, who);
}

/** The ids of the presets open in pet windows that still exist, without main's. */
export function openPetIds(kv: KeyValue): string[] {
  const ids = kv.get(PRESET_KEYS.open);
  if (!Array.isArray(ids)) return [];
  const known = new Set(listPresets(kv).map((p) => p.id));
  const active = activePresetId(kv);
  return [...new Set(ids.filter((x): x is string => typeof x === "string"))].filter(
    (x) => known.has(x) && x !== active,
  );
}

/** Opens a pet window's preset (no-op when it is main's or already open). */
export function openPet(kv: KeyValue, id: string, who = "app"): void {
  if (!getPreset(kv, id)) throw new Error(`unknown preset ${id}`);
  if (id === activePresetId(kv)) return;
  const open = openPetIds(kv);
  if (!open.includes(id)) kv.set(PRESET_KEYS.open, [...open, id], who);
}

/** Closes a pet window's preset. */
export function closePet(kv: KeyValue, id: string, who = "app"): void {
  const ids = kv.get(PRESET_KEYS.open);
  if (Array.isArray(ids) && ids.includes(id)) {
    kv.set(
      PRESET_KEYS.open,
      ids.filter((x) => x !== id),
      who,
    );
  }
}

/** The presets open now: main's active preset first, then the pet windows' in opening order. */
export function openPresets(kv: KeyValue): PresetRef[] {
  const byId = new Map(listPresets(kv).map((p) => [p.id, p]));
  return [activePresetId(kv), ...openPetIds(kv)].map((id) => ({ id, name: byId.get(id)!.name }));
}

/** One entry of a tool's `toward` / `to` enum and the preset (or the user) it maps to. */
export interface Choice {
  label: string;
  id: string;
}

/** The label for the human in rate_relation's toward. */
export const USER_LABEL = "user";

/**
 * The other open characters as enum entries: a preset named `user` becomes `user (character)` so the
 * bare `user` is always the human; a name two presets share is told apart by its id.
 */
export function characterChoices(open: PresetRef[], selfId: string): Choice[] {
  const others = open.filter((p) => p.id !== selfId);
  const base = (p: PresetRef) => (p.name === USER_LABEL ? `${USER_LABEL} (character)` : p.name);
  const counts = new Map<string, number>();
  for (const p of others) counts.set(base(p), (counts.get(base(p)) ?? 0) + 1);
  return others.map((p) => {
    const label = base(p);
    return { id: p.id, label: counts.get(label)! > 1 ? `${label} (${p.id})` : label };
  });
}
