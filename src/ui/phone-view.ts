/** The phone window: chat only with the active character; it hands no tools (generate_express alone). */
import { activePresetId } from "../app/presets/presets.ts";
import type { ViewContext } from "./context.ts";
import { createPanel } from "./panel.ts";

/** Mounts the phone's single chat panel. */
export function mountPhone(root: HTMLElement, ctx: ViewContext): void {
  const panel = createPanel({ ...ctx, presetId: activePresetId(ctx.kv), kind: "phone", stage: false });
  root.append(panel.el);
}
