/**
 * The tools a page's chat panel hands to createClientTools, per window kind (pet-window-tools.ts decides which):
 * the browser build's main view and the phone as before; the desktop app's main and pet windows (desktop-view.ts)
 * also declare browser, run through the host's browser_run / browser_guide over the bridge (browser-relay.ts, as
 * `yui chat`'s node window does), and main declares body_action and look over the avatar executor its window lends
 * (desktop-view.ts); without one a call answers the executor-not-ready result of avatar.ts.
 */

import type { Addressing } from "../app/addressing/addressing.ts";
import { type KeyValue, openPresets } from "../app/presets/presets.ts";
import { switchStates } from "../app/switches.ts";
import { createAddressCharacterTool } from "../app/tools/address-character.ts";
import { createAvatarTools } from "../app/tools/avatar.ts";
import { type WindowKind, windowTools } from "../app/tools/pet-window-tools.ts";
import { createRateRelationTool, relationsOverBridge } from "../app/tools/relation.ts";
import { type BrowserInvoke, createBrowserRelay } from "../io/browser/browser-relay.ts";
import { createBrowserTool } from "../io/browser/index.ts";
import type { ClientTool } from "../io/chat/tools/client-tools.ts";
import type { AvatarExecutor } from "../protocol/body.ts";

export interface PanelToolDeps {
  kind: WindowKind;
  kv: KeyValue;
  presetId: string;
  addressing: Addressing;
  /** The bridge's invoke: relation_rate, browser_run, browser_guide. */
  invoke: BrowserInvoke;
  /** main's avatar executor, read at call time; null while the host holds none for this window. */
  avatarExecutor?: () => AvatarExecutor | null;
}

/** Returns a builder of the panel's window tools (built per turn: the enums read the presets open now). */
export function createPanelTools(deps: PanelToolDeps): () => ClientTool[] {
  const { kv, presetId } = deps;
  const relay = createBrowserRelay(deps.invoke);
  const open = () => openPresets(kv);
  return () =>
    windowTools(deps.kind, {
      // Each change is decided by the host in one transaction (relation_rate), not read-modify-written here.
      rateRelation: createRateRelationTool({
        openPresets: open,
        presetId,
        ...relationsOverBridge(deps.invoke, kv),
      }),
      addressCharacter: createAddressCharacterTool({
        openPresets: open,
        presetId,
        addressing: deps.addressing,
      }),
      // Handed by the desktop app's windows only (pet-window-tools.ts); the switch is read when a call runs.
      browser: createBrowserTool({ readSwitch: async () => switchStates(kv).browser, presetId, relay }),
      // Handed by main's window only.
      avatar: createAvatarTools({
        executor: deps.avatarExecutor ?? (() => null),
        screenCaptureOn: async () => switchStates(kv).screen,
      }),
    });
}
