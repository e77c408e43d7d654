/**
 * The generated characters a preset may wear (docs/avatar.md "The generated characters"): the build writes the
 * default one, Yui, and the others beside her (`variant-<n>.vrm`, tools/vrm-gen/main.ts). A preset that names no
 * model of its own is given one of them the first time her model is asked for (`yui.<presetId>.look`): the one
 * the fewest other presets wear, the lowest first; the first preset of the list wears Yui until it is given one.
 */
import { existsSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { listPresets } from "../../src/app/presets/presets.ts";
import { lookKey } from "../../src/protocol/looks.ts";
import type { Preset } from "../../src/protocol/preset.ts";
import type { Store } from "../store/store.ts";

/** The file of generated character `look` beside the default one (look 0 is the default itself). */
export function lookFile(defaultAvatar: string, look: number): string {
  return look === 0 ? defaultAvatar : join(dirname(defaultAvatar), `variant-${look}.vrm`);
}

/** How many generated characters there are beside `defaultAvatar` (1 when the build wrote no others). */
export function lookCount(defaultAvatar: string): number {
  let n = 1;
  while (n < 64 && existsSync(lookFile(defaultAvatar, n))) n++;
  return n;
}

/** The preset's own model, when it names a .vrm file. */
export function ownModel(p: Preset | undefined): string | undefined {
  return p?.avatar && isAbsolute(p.avatar) && p.avatar.endsWith(".vrm") ? p.avatar : undefined;
}

const storedLook = (store: Store, presetId: string): number | null => {
  const v = store.get(lookKey(presetId));
  return typeof v === "number" ? v : null;
};

/** The look `presetId` wears among `count`, given (and stored) now when she has none yet. */
export function lookFor(store: Store, presetId: string, count: number): number {
  const stored = storedLook(store, presetId);
  if (stored !== null) return stored;
  const presets = listPresets(store);
  const worn = new Array<number>(count).fill(0);
  presets.forEach((p, i) => {
    if (p.id === presetId || ownModel(p)) return;
    // The first preset wears Yui until she is given a look of her own.
    const look = storedLook(store, p.id) ?? (i === 0 ? 0 : null);
    if (look !== null && look < count) worn[look]!++;
  });
  const look = worn.indexOf(Math.min(...worn));
  store.set(lookKey(presetId), look, "host");
  return look;
}

/** The model file `presetId` is drawn with: her own, else the generated character she wears. */
export function modelFile(store: Store, presetId: string, defaultAvatar: string): string {
  const presets = listPresets(store);
  const p = presets.find((x) => x.id === presetId);
  const own = ownModel(p);
  if (own) return own;
  if (!p) return defaultAvatar;
  const file = lookFile(defaultAvatar, lookFor(store, presetId, lookCount(defaultAvatar)));
  return existsSync(file) ? file : defaultAvatar;
}
