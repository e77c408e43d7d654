/** The switches as the page reads them from the store mirror (their schemas are rows of KEY_TABLE, src/protocol/store-keys.ts). */

import type { SwitchId } from "../app/switches.ts";
import { BROWSER_WARNING } from "../io/browser/results.ts";

export { SWITCH_KEYS, type SwitchId, switchStates } from "../app/switches.ts";

/** The settings copy of each switch; the browser's is the spec's warning. */
export const SWITCH_COPY: Record<SwitchId, { label: string; help: string }> = {
  browser: {
    label: "Browser (ego lite)",
    // The spec's warning, word for word (one copy: the browser tool's result table).
    help: `${BROWSER_WARNING} Off by default. (The browser build never declares this tool; it applies to the desktop app.)`,
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
