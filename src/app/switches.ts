/** The switchable tools' switches: store key by switch id, and their states now (docs/client-context.md). */
import type { KeyValue } from "./presets/presets.ts";
import { relationsEnabled } from "./relations/access.ts";

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
