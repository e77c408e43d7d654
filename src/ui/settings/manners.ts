/**
 * Settings → her body on the desktop, her manners (docs/body.md): her size (the scale of her window: her spots,
 * her share of a window's edge and her silhouette follow it; her menu offers the same sizes) and whether she moves
 * on her own now and then (`yui.<presetId>.desktop`).
 */
import {
  DEFAULT_DESKTOP_SETTINGS,
  DesktopSettingsSchema,
  type DesktopSettingsValue,
  desktopSettingsKey,
  SIZES,
} from "../../protocol/body.ts";
import { h } from "../dom.ts";
import { field } from "./shared.ts";

/** A character's stored manners, or the defaults. */
export function mannersOf(kv: { get(key: string): unknown }, presetId: string): DesktopSettingsValue {
  const r = DesktopSettingsSchema.safeParse(kv.get(desktopSettingsKey(presetId)));
  return r.success ? r.data : DEFAULT_DESKTOP_SETTINGS;
}

/** The rows of her manners for the character `presetId`: her size and "moves on her own". */
export function mannersRows(
  kv: { get(key: string): unknown; set(key: string, value: unknown): void },
  presetId: string,
): HTMLElement[] {
  const now = mannersOf(kv, presetId);
  const save = (next: Partial<DesktopSettingsValue>) =>
    kv.set(desktopSettingsKey(presetId), { ...mannersOf(kv, presetId), ...next });
  // A scale set elsewhere (the store, an older choice) that is no preset is shown as the nearest one.
  const nearest = SIZES.reduce((a, b) =>
    Math.abs(b.scale - now.scale) < Math.abs(a.scale - now.scale) ? b : a,
  );
  const size = h(
    "select",
    {
      "data-testid": "her-size",
      onchange: (e: Event) => {
        const chosen = SIZES.find((x) => x.id === (e.target as HTMLSelectElement).value);
        if (chosen) save({ scale: chosen.scale });
      },
    },
    ...SIZES.map((x) =>
      h(
        "option",
        { value: x.id, selected: x.id === nearest.id },
        `${x.label} (${Math.round(x.scale * 100)} %)`,
      ),
    ),
  );
  const wander = h("input", {
    type: "checkbox",
    checked: now.wander,
    "data-testid": "moves-on-her-own",
    onchange: (e: Event) => save({ wander: (e.target as HTMLInputElement).checked }),
  });
  return [
    field(
      "Her size",
      size,
      "Her window on the desktop; Medium leaves a laptop screen usable. Also in her menu.",
    ),
    h(
      "label",
      { class: "check" },
      wander,
      " Moves on her own (now and then, while you are at the computer and nobody talks to her)",
    ),
  ];
}
