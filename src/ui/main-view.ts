/**
 * Main, the browser build's page: one panel per open character (the active preset first, with the stage,
 * then the presets opened as pet panels), each with its own engine and transcript.
 */
import { openPresets } from "../app/presets/presets.ts";
import { PRESET_KEYS } from "../protocol/preset.ts";
import type { ViewContext } from "./context.ts";
import { h } from "./dom.ts";
import { createPanel, type Panel } from "./panel.ts";
import { followDoze } from "./stage-doze.ts";

/** Mounts the characters' panels and keeps them in step with the open presets. */
export function mountMain(root: HTMLElement, ctx: ViewContext): void {
  const grid = h("div", { class: "panels", "data-testid": "panels" });
  root.append(grid);
  const panels = new Map<string, Panel & { name: string }>();
  let mainId = "";
  // `?stage=off` shows the chat without the 3D stage (low-power machines, tests that are not about the stage).
  const stageOn = new URLSearchParams(location.search).get("stage") !== "off";
  const sync = () => {
    const open = openPresets(ctx.kv);
    const ids = open.map((p) => p.id);
    // Main's character changed: its panel is rebuilt so the stage follows it.
    if (ids[0] !== mainId) {
      for (const p of panels.values()) {
        p.dispose();
        p.el.remove();
      }
      panels.clear();
      mainId = ids[0] ?? "";
    }
    const names = new Map(open.map((p) => [p.id, p.name]));
    for (const [id, p] of panels) {
      // Gone, or renamed: a renamed character's panel is rebuilt so its tools and addressing use the new name.
      if (!ids.includes(id) || names.get(id) !== p.name) {
        p.dispose();
        p.el.remove();
        panels.delete(id);
      }
    }
    ids.forEach((id, i) => {
      let p = panels.get(id);
      if (!p) {
        p = {
          ...createPanel({
            ...ctx,
            presetId: id,
            kind: "browser",
            stage: stageOn && i === 0,
            signals: i === 0,
          }),
          name: names.get(id)!,
        };
        // Her doze in the browser build: the stage stops drawing while nothing concerns her (docs/avatar.md).
        const panel = p;
        panel.stage?.onReady((stage) => {
          const off = followDoze({ ctx, stage, on: panel.on });
          const dispose = panel.dispose;
          panel.dispose = () => {
            off();
            dispose();
          };
        });
        panels.set(id, p);
      }
      grid.append(p.el);
    });
    grid.dataset.count = String(ids.length);
  };
  sync();
  ctx.kv.watch((k) => k === PRESET_KEYS.list || k === PRESET_KEYS.open || k === PRESET_KEYS.active, sync);
}
