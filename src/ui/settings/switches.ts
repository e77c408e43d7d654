/** Settings → Switches: browser (with the spec's warning), relations, screen capture, each with its help. */
import type { ViewContext } from "../context.ts";
import { h, replace } from "../dom.ts";
import { switchRow } from "../quick-view.ts";
import { SWITCH_KEYS, type SwitchId } from "../switches.ts";
import { type Section, sectionCard } from "./shared.ts";

/** Mounts the Switches section. */
export function mountSwitches(ctx: ViewContext): Section {
  const card = sectionCard("switches");
  const render = () =>
    replace(
      card,
      h("h2", {}, "Switches"),
      ...(Object.keys(SWITCH_KEYS) as SwitchId[]).map((id) => switchRow(ctx, id, true)),
    );
  return { card, render };
}
