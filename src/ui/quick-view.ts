/** Quick controls: the switches, and one row per open character with its relation band toward the user. */
import { openPresets } from "../app/presets/presets.ts";
import { bandToward } from "../app/relations/access.ts";
import type { ViewContext } from "./context.ts";
import { h, replace } from "./dom.ts";
import { dozeRow, isDozeKey } from "./doze-controls.ts";
import { handsFreeSwitch, isListenKey } from "./listen-controls.ts";
import { isPresetKey, isRelationsKey, isSwitchKey } from "./settings/keys.ts";
import { SWITCH_COPY, SWITCH_KEYS, type SwitchId, switchStates } from "./switches.ts";
import { isVoiceKey, muteSwitch, voiceToggle } from "./voice-controls.ts";

/** A labelled on/off switch bound to a store key. */
export function switchRow(ctx: ViewContext, id: SwitchId, withHelp: boolean): HTMLElement {
  const box = h("input", {
    type: "checkbox",
    role: "switch",
    checked: switchStates(ctx.kv)[id],
    "data-testid": `switch-${id}`,
    onchange: (e: Event) => ctx.kv.set(SWITCH_KEYS[id], { enabled: (e.target as HTMLInputElement).checked }),
  });
  return h(
    "label",
    { class: `switch-row switch-${id}` },
    h(
      "span",
      { class: "switch-text" },
      h("strong", {}, SWITCH_COPY[id].label),
      withHelp ? h("small", {}, SWITCH_COPY[id].help) : null,
    ),
    box,
    h("span", { class: "toggle", "aria-hidden": "true" }),
  );
}

/** Mounts the quick controls. */
export function mountQuick(root: HTMLElement, ctx: ViewContext): void {
  const switches = h("div", { class: "card" });
  const rows = h("div", { class: "card" });
  root.append(h("h1", {}, "Quick controls"), switches, rows);
  const render = () => {
    const on = switchStates(ctx.kv).relations;
    replace(
      switches,
      h("h2", {}, "Switches"),
      ...(Object.keys(SWITCH_KEYS) as SwitchId[]).map((id) => switchRow(ctx, id, false)),
      muteSwitch(ctx.kv),
      handsFreeSwitch(ctx.kv),
      dozeRow(ctx.kv),
    );
    replace(
      rows,
      h("h2", {}, "Characters"),
      ...openPresets(ctx.kv).map((p, i) =>
        h(
          "div",
          { class: "preset-row", "data-testid": `quick-${p.id}` },
          h("span", { class: "avatar-dot" }, p.name.slice(0, 1)),
          h("span", { class: "preset-name" }, p.name),
          i === 0 ? h("span", { class: "tag" }, "main") : h("span", { class: "tag soft" }, "panel"),
          h(
            "span",
            { class: `band band-${on ? bandToward(ctx.kv, p.id) : "off"}`, "data-testid": "band" },
            on ? bandToward(ctx.kv, p.id) : "relations off",
          ),
          voiceToggle(ctx.kv, p.id, p.name),
        ),
      ),
    );
  };
  render();
  ctx.kv.watch(
    (k) =>
      isPresetKey(k) ||
      isRelationsKey(k) ||
      isVoiceKey(k) ||
      isSwitchKey(k) ||
      isListenKey(k) ||
      isDozeKey(k),
    render,
  );
}
