/** The switches as the page reads them from the store mirror (host/store/keys.ts holds their schemas). */
import type { KeyValue } from "../app/presets/presets.ts";
import { relationsEnabled } from "../app/relations/access.ts";

/** Store key of each switch, by the switch id the tools carry. */
export const SWITCH_KEYS = {
  browser: "yui.browser",
  relations: "yui.relations",
  screen: "yui.screen_capture",
} as const;
export type SwitchId = keyof typeof SWITCH_KEYS;

const on = (kv: KeyValue, key: string) =>
  (kv.get(key) as { enabled?: unknown } | undefined)?.enabled === true;

/** Every switch's state now (relations on by default, the others off). */
export function switchStates(kv: KeyValue): Record<SwitchId, boolean> {
  return {
    browser: on(kv, SWITCH_KEYS.browser),
    relations: relationsEnabled(kv),
    screen: on(kv, SWITCH_KEYS.screen),
  };
}

/** The settings copy of each switch; the browser's is the spec's warning. */
export const SWITCH_COPY: Record<SwitchId, { label: string; help: string }> = {
  browser: {
    label: "Browser (ego lite)",
    help:
      "While the switch is on, the backend runs arbitrary JavaScript on this computer through ego lite with " +
      "your rights. A script can read your files and run programs, and it reaches every site signed in on " +
      "ego lite's YUI profile. There is no sandbox. Off by default. (The browser build never declares this tool; " +
      "it applies to the desktop app.)",
  },
  relations: {
    label: "Relations",
    help: "Characters keep a feeling toward you and each other and may move it a little, with a reason you can read. Off keeps the values and stops changes.",
  },
  screen: {
    label: "Screen capture",
    help: "Lets the character look at your screen (desktop app, main window). Off by default.",
  },
};
