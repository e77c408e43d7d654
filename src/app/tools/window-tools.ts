/**
 * The tools a window hands to createClientTools, by window kind: the same wiring for a page's chat panel and for a
 * Node process acting as the desktop app (`yui chat`, `yui tools`, tests). What differs is handed in: how a
 * rate_relation change is decided (over the bridge in a page, over the store in Node), the bridge's invoke for the
 * browser tool, and main's avatar executor.
 */
import type { BridgeInvoke } from "../../io/bridge/client.ts";
import { createBrowserRelay } from "../../io/browser/browser-relay.ts";
import { createBrowserTool } from "../../io/browser/index.ts";
import type { ClientTool } from "../../io/chat/tools/client-tools.ts";
import type { AvatarExecutor } from "../../protocol/body.ts";
import type { Addressing } from "../addressing/addressing.ts";
import { type KeyValue, openPresets } from "../presets/presets.ts";
import { switchStates } from "../switches.ts";
import { createAddressCharacterTool } from "./address-character.ts";
import { createAvatarTools } from "./avatar.ts";
import { createRateRelationTool, type RateRelationDeps } from "./relation.ts";

/** The window kinds that run a chat: main, pet and bound pet windows, the browser build, the phone. */
export const WINDOW_KINDS = ["main", "pet", "bound", "browser", "phone"] as const;
export type WindowKind = (typeof WINDOW_KINDS)[number];

/** The tools a window can hand over; avatar tools exist only where main created the executor. */
export interface WindowToolSet {
  rateRelation: ClientTool;
  addressCharacter: ClientTool;
  browser: ClientTool;
  /** body_action and look, over main's avatar executor. */
  avatar: readonly ClientTool[];
}

/**
 * The list a window hands to createClientTools: every pet window hands rate_relation and address_character,
 * and in the desktop app browser; main also hands body_action and look; the browser build hands the two
 * relation tools; the phone hands none.
 */
export function windowTools(kind: WindowKind, set: WindowToolSet): ClientTool[] {
  switch (kind) {
    case "main":
      return [set.rateRelation, set.addressCharacter, set.browser, ...set.avatar];
    case "pet":
    case "bound":
      return [set.rateRelation, set.addressCharacter, set.browser];
    case "browser":
      return [set.rateRelation, set.addressCharacter];
    case "phone":
      return [];
  }
}

export interface WindowToolDeps {
  kind: WindowKind;
  /** The store (a page's mirror of it, or the host's store in Node): the presets open now and the switches. */
  kv: KeyValue;
  presetId: string;
  addressing: Addressing;
  /** The bridge's invoke (or the host's command table in Node): browser_run, browser_guide. */
  invoke: BridgeInvoke;
  /** How a rate_relation change is decided: relationsOverBridge in a page, relationsFromStore in Node. */
  relations: Pick<RateRelationDeps, "enabled" | "rate">;
  /** main's avatar executor, read at call time; null while none is reachable. */
  avatarExecutor?: () => AvatarExecutor | null;
}

/** Returns a builder of the window's tools (built per turn: the enums read the presets open now). */
export function createWindowTools(deps: WindowToolDeps): () => ClientTool[] {
  const { kv, presetId } = deps;
  const relay = createBrowserRelay(deps.invoke);
  const open = () => openPresets(kv);
  return () =>
    windowTools(deps.kind, {
      rateRelation: createRateRelationTool({ openPresets: open, presetId, ...deps.relations }),
      addressCharacter: createAddressCharacterTool({
        openPresets: open,
        presetId,
        addressing: deps.addressing,
      }),
      // Handed by the desktop app's windows only; the switch is read when a call runs.
      browser: createBrowserTool({ readSwitch: async () => switchStates(kv).browser, presetId, relay }),
      // Handed by main's window only; without an executor a call answers avatar.ts's not-ready result.
      avatar: createAvatarTools({
        executor: deps.avatarExecutor ?? (() => null),
        screenCaptureOn: async () => switchStates(kv).screen,
      }),
    });
}
