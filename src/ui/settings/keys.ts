/**
 * The store keys the settings and quick-controls sections redraw on, named from the contract (the preset keys of
 * src/protocol/preset.ts, the rows of the store's key table in src/protocol/store-keys.ts), never spelled here.
 */
import { PRESET_ID_SOURCE, PRESET_KEYS } from "../../protocol/preset.ts";
import { relationsKey } from "../../protocol/relations.ts";
import { KEY_TABLE, SWITCH_KEYS } from "../../protocol/store-keys.ts";

/** A test for the keys of one row of the key table: the key itself, or any preset's key for a `<presetId>` row. */
function keysOfRow(pattern: string): (key: string) => boolean {
  if (!KEY_TABLE.some((row) => row.pattern === pattern))
    throw new Error(`${pattern} is not in the store's key table`);
  const parts = pattern.split("<presetId>").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const re = new RegExp(`^${parts.join(PRESET_ID_SOURCE)}$`);
  return (key) => re.test(key);
}

const presetKeys: readonly string[] = [PRESET_KEYS.list, PRESET_KEYS.active, PRESET_KEYS.open];
const switchKeys: readonly string[] = Object.values(SWITCH_KEYS);
const presetRelations = keysOfRow(relationsKey("<presetId>"));

/** The characters' keys: the preset list, the main one, the ones open as panels. */
export const isPresetKey = (key: string): boolean => presetKeys.includes(key);

/** A switch's key (browser, relations, screen capture). */
export const isSwitchKey = (key: string): boolean => switchKeys.includes(key);

/** What the relations shown depend on: a preset's relations, or the Relations switch. */
export const isRelationsKey = (key: string): boolean => key === SWITCH_KEYS.relations || presetRelations(key);
