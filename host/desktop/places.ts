/**
 * Her desktop manners as the host reads them (docs/body.md): her size (the scale of her window) and whether she
 * moves on her own (`yui.<presetId>.desktop`), and where she was per monitor layout (`yui.<presetId>.place`), so
 * that she comes back there after a restart.
 */
import {
  DEFAULT_DESKTOP_SETTINGS,
  DesktopSettingsSchema,
  type DesktopSettingsValue,
  desktopSettingsKey,
  PlaceMemorySchema,
  placeKey,
} from "../../src/protocol/body.ts";
import type { Store } from "../store/store.ts";

/** A character window's size at scale 1 (her window before the scale setting: 62 % of a 900 px screen). */
export const BASE_WINDOW = { width: 360, height: 560 } as const;
/** How many monitor layouts her place is remembered for (the oldest is forgotten first). */
const LAYOUTS_KEPT = 8;

/** A character's manners on the desktop, or the defaults. */
export function desktopSettings(store: Pick<Store, "get">, presetId: string): DesktopSettingsValue {
  const r = DesktopSettingsSchema.safeParse(store.get(desktopSettingsKey(presetId)));
  return r.success ? r.data : DEFAULT_DESKTOP_SETTINGS;
}

/** Her window's size at `scale`. */
export function windowSize(scale: number): { width: number; height: number } {
  return { width: Math.round(BASE_WINDOW.width * scale), height: Math.round(BASE_WINDOW.height * scale) };
}

/** Her perch width at `scale`: the part of a top edge she takes (perch.ts DEFAULT_PERCH at scale 1). */
export function perchWidth(scale: number): number {
  return Math.max(24, Math.round(120 * scale));
}

/** A monitor layout's key: each monitor's rectangle, in order of place (what the user's set of screens is). */
export function layoutKey(rects: readonly { x: number; y: number; width: number; height: number }[]): string {
  return [...rects]
    .sort((a, b) => a.x - b.x || a.y - b.y)
    .map((r) => `${r.x},${r.y},${r.width}x${r.height}`)
    .join(";");
}

/** Where she was on this monitor layout (the point under her), or null. */
export function recallPlace(store: Pick<Store, "get">, presetId: string, layout: string) {
  const r = PlaceMemorySchema.safeParse(store.get(placeKey(presetId)));
  return r.success ? (r.data.layouts[layout] ?? null) : null;
}

/** Remembers where she is on this monitor layout (the newest layouts are kept). */
export function rememberPlace(
  store: Pick<Store, "get" | "set">,
  presetId: string,
  layout: string,
  p: { x: number; y: number },
): void {
  const r = PlaceMemorySchema.safeParse(store.get(placeKey(presetId)));
  const layouts = { ...(r.success ? r.data.layouts : {}) };
  const at = { x: Math.round(p.x), y: Math.round(p.y) };
  const was = layouts[layout];
  if (was && was.x === at.x && was.y === at.y) return;
  delete layouts[layout];
  layouts[layout] = at;
  const keys = Object.keys(layouts);
  for (const k of keys.slice(0, Math.max(0, keys.length - LAYOUTS_KEPT))) delete layouts[k];
  store.set(placeKey(presetId), { layouts }, "host");
}
