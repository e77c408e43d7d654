/**
 * Settings → Her body on the desktop, for the selected character (docs/body.md): how long she sleeps after
 * go_to_bed before she wakes on her own, reduced motion (no bed scene: go_to_bed answers unsupported), and her
 * manners (manners.ts: her size, whether she moves on her own).
 */
import { getPreset } from "../../app/presets/presets.ts";
import {
  BodySettingsSchema,
  type BodySettingsValue,
  bodySettingsKey,
  DEFAULT_BODY_SETTINGS,
} from "../../protocol/body.ts";
import { h, replace } from "../dom.ts";
import { dozeSelect } from "../doze-controls.ts";
import { mannersRows } from "./manners.ts";
import { field, type Section, type SettingsScreen, sectionCard } from "./shared.ts";

/** The stored settings of a character, or the defaults. */
export function bodySettings(kv: { get(key: string): unknown }, presetId: string): BodySettingsValue {
  const r = BodySettingsSchema.safeParse(kv.get(bodySettingsKey(presetId)));
  return r.success ? r.data : DEFAULT_BODY_SETTINGS;
}

/** Mounts the body section of the selected character. */
export function mountBody(s: SettingsScreen): Section {
  const card = sectionCard("body");
  const render = () => {
    const { kv } = s.ctx;
    const p = getPreset(kv, s.selected);
    if (!p) return;
    const now = bodySettings(kv, p.id);
    const save = (next: Partial<BodySettingsValue>) =>
      kv.set(bodySettingsKey(p.id), { ...bodySettings(kv, p.id), ...next });
    const minutes = h("input", {
      type: "number",
      min: 1,
      max: 1440,
      step: 1,
      value: Math.round(now.wake_timeout_s / 60),
      "data-testid": "wake-timeout",
      onchange: (e: Event) => {
        const el = e.target as HTMLInputElement;
        const m = Math.round(Number(el.value));
        if (!(m >= 1 && m <= 1440)) {
          s.ctx.toast("The wake timeout is 1 to 1440 minutes.");
          el.value = String(Math.round(bodySettings(kv, p.id).wake_timeout_s / 60));
          return;
        }
        save({ wake_timeout_s: m * 60 });
      },
    });
    const reduced = h("input", {
      type: "checkbox",
      checked: now.reduced_motion,
      "data-testid": "reduced-motion",
      onchange: (e: Event) => save({ reduced_motion: (e.target as HTMLInputElement).checked }),
    });
    replace(
      card,
      h("h2", {}, `${p.name} on the desktop`),
      field("Wakes up after (minutes)", minutes, "How long she sleeps after the backend puts her to bed."),
      h("label", { class: "check" }, reduced, " Reduced motion (no bed scene)"),
      ...mannersRows(kv, p.id),
      field(
        "Dozes after",
        dozeSelect(kv),
        "Every character on this device: with nothing going on she rests, eyes shut, and her stage draws nothing.",
      ),
    );
  };
  return { card, render };
}
