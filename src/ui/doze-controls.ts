/**
 * The doze delay's control (`yui.doze`, docs/avatar.md "Dozing"), in Settings and quick controls: after how long
 * with nothing that concerns her a character dozes (her stage stops drawing), or never. One setting per device.
 */
import { DOZE_CHOICES, DOZE_KEY, dozeDelayOf } from "../protocol/doze.ts";
import { h } from "./dom.ts";

type KeyValue = { get(key: string): unknown; set(key: string, value: unknown): void };

const label = (s: number) => (s % 60 === 0 ? `${s / 60} min` : `${s} s`);

/** The select of the doze delay: the usual choices, the stored one if it is none of them, and Never. */
export function dozeSelect(kv: KeyValue): HTMLSelectElement {
  const now = dozeDelayOf(kv);
  const choices: number[] = [...DOZE_CHOICES];
  if (now !== null && !choices.includes(now)) choices.push(now);
  choices.sort((a, b) => a - b);
  return h(
    "select",
    {
      "data-testid": "doze-delay",
      onchange: (e: Event) => {
        const v = (e.target as HTMLSelectElement).value;
        kv.set(DOZE_KEY, { delay_s: v === "never" ? "never" : Number(v) });
      },
    },
    ...choices.map((s) => h("option", { value: String(s), selected: s === now }, label(s))),
    h("option", { value: "never", selected: now === null }, "Never"),
  ) as HTMLSelectElement;
}

/** Quick controls' row: the doze delay. */
export function dozeRow(kv: KeyValue): HTMLElement {
  return h(
    "label",
    { class: "switch-row switch-doze" },
    h(
      "span",
      { class: "switch-text" },
      h("strong", {}, "Doze after"),
      h("small", {}, "With nothing going on she rests, eyes shut, and draws nothing."),
    ),
    dozeSelect(kv),
  );
}

export const isDozeKey = (key: string) => key === DOZE_KEY;
