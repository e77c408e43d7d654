/** What every view receives. */
import type { BridgeClient } from "./bridge-client.ts";
import type { StoreMirror } from "./store-mirror.ts";

export interface ViewContext {
  bridge: BridgeClient;
  kv: StoreMirror;
  toast(message: string): void;
  /** The page is one of the desktop app's windows (`&app=desktop`, tabs.ts). */
  desktopApp?: boolean;
}
