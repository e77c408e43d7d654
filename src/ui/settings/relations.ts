/**
 * Settings → How the selected character feels: value and band toward each target, the latest reasons with who
 * and when, and the user's slider, which sets the value outright.
 */
import { getPreset, openPresets } from "../../app/presets/presets.ts";
import { type RelationRow, relationRows } from "../../app/relations/access.ts";
import { RELATION_MAX, RELATION_MIN } from "../../app/relations/relations.ts";
import type { ViewContext } from "../context.ts";
import { h, replace } from "../dom.ts";
import { type Section, type SettingsScreen, sectionCard } from "./shared.ts";

/** The latest changes toward one target, newest first, or a note that there are none. */
function reasons(r: RelationRow): HTMLElement {
  if (!r.changes.length) return h("p", { class: "hint" }, "No changes yet.");
  return h(
    "ul",
    { class: "reasons" },
    ...r.changes.map((c) =>
      h(
        "li",
        {},
        h("span", { class: "delta" }, `${c.from} → ${c.to}`),
        ` ${c.why} `,
        h("small", {}, `(${c.who}, ${new Date(c.at).toLocaleString()})`),
      ),
    ),
  );
}

/** One target's value, band, slider and reasons. */
function relationRow(ctx: ViewContext, presetId: string, name: string, r: RelationRow): HTMLElement {
  const out = h("output", {}, String(r.value));
  return h(
    "div",
    { class: "relation", "data-testid": `relation-${r.id}` },
    h(
      "div",
      { class: "row" },
      h("strong", {}, `toward ${r.label}`),
      h("span", { class: `band band-${r.band}` }, r.band),
      out,
    ),
    h("input", {
      type: "range",
      min: RELATION_MIN,
      max: RELATION_MAX,
      step: 1,
      value: r.value,
      "aria-label": `${name} toward ${r.label}`,
      "data-testid": `slider-${r.id}`,
      oninput: (e: Event) => (out.textContent = (e.target as HTMLInputElement).value),
      onchange: (e: Event) =>
        ctx.bridge
          .invoke("relation_set_by_user", {
            presetId,
            target: r.id,
            value: Number((e.target as HTMLInputElement).value),
          })
          .catch((err: Error) => ctx.toast(err.message)),
    }),
    reasons(r),
  );
}

/** Mounts the relations section of the selected character. */
export function mountRelations(s: SettingsScreen): Section {
  const card = sectionCard("relations");
  const render = () => {
    const { kv } = s.ctx;
    const p = getPreset(kv, s.selected);
    if (!p) return;
    replace(
      card,
      h("h2", {}, `How ${p.name} feels`),
      h(
        "p",
        { class: "hint" },
        "From -20 (hostile) to 20 (close). The backend moves it a little at a time with a reason; your slider sets it outright.",
      ),
      ...relationRows(kv, p.id, openPresets(kv)).map((r) => relationRow(s.ctx, p.id, p.name, r)),
    );
  };
  return { card, render };
}
