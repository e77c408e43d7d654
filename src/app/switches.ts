/** The switchable tools' switches: store key by switch id, and their states now (docs/client-context.md). */
import { SWITCH_KEYS, type SwitchId } from "../protocol/store-keys.ts";
import type { KeyValue } from "./presets/presets.ts";
import { relationsEnabled } from "./relations/access.ts";

/** Store key of each switch, by the switch id the tools carry (src/protocol/store-keys.ts). */
export { SWITCH_KEYS, type SwitchId };

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
