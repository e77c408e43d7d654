/**
 * A window's chat wiring in a Node process (`yui chat`, `yui tools`, tests): the real registry of that window
 * kind over the host's store, the host's browser commands and, for main, the avatar executor when one is
 * reachable. Acts as the desktop app: main, pet and bound windows declare browser.
 */

import type { Addressing } from "../../src/app/addressing/addressing.ts";
import { activePresetId, type KeyValue, openPresets } from "../../src/app/presets/presets.ts";
import { relationLineFor } from "../../src/app/relations/access.ts";
import { type SwitchId, switchStates } from "../../src/app/switches.ts";
import { createAddressCharacterTool } from "../../src/app/tools/address-character.ts";
import { createAvatarTools } from "../../src/app/tools/avatar.ts";
import { type WindowKind, windowTools } from "../../src/app/tools/pet-window-tools.ts";
import { createRateRelationTool, relationsFromStore } from "../../src/app/tools/relation.ts";
import { type BrowserInvoke, createBrowserRelay } from "../../src/io/browser/browser-relay.ts";
import { createBrowserTool } from "../../src/io/browser/index.ts";
import type { ClientTool } from "../../src/io/chat/tools/client-tools.ts";
import type { AvatarExecutor } from "../../src/protocol/body.ts";

/** Reads one switch from the store now. */
export function switchOn(kv: KeyValue, id: SwitchId): boolean {
  return switchStates(kv)[id];
}

export interface NodeWindowOptions {
  kv: KeyValue;
  kind: WindowKind;
  /** The window's preset; main's defaults to the active preset. */
  presetId?: string;
  addressing: Addressing;
  /** The host's commands (browser_run, browser_guide). */
  invoke: BrowserInvoke;
  /** main's avatar executor, read at call time; null until one is reachable. */
  avatarExecutor?: () => AvatarExecutor | null;
}

/** One window's tool wiring: its tool list (built per turn), its switches and its context lines. */
export function createNodeWindow(opts: NodeWindowOptions) {
  const { kv } = opts;
  const presetId = opts.presetId ?? activePresetId(kv);
  const relay = createBrowserRelay(opts.invoke);
  const relations = relationsFromStore(kv);
  return {
    presetId,
    /** Builds the window's tools now (enums read the presets open now). */
    tools(): ClientTool[] {
      const open = () => openPresets(kv);
      return windowTools(opts.kind, {
        rateRelation: createRateRelationTool({ openPresets: open, presetId, ...relations }),
        addressCharacter: createAddressCharacterTool({
          openPresets: open,
          presetId,
          addressing: opts.addressing,
        }),
        browser: createBrowserTool({ readSwitch: async () => switchOn(kv, "browser"), presetId, relay }),
        avatar: createAvatarTools({
          executor: opts.avatarExecutor ?? (() => null),
          screenCaptureOn: async () => switchOn(kv, "screen"),
        }),
      });
    },
    async switches(): Promise<Record<string, boolean>> {
      return switchStates(kv);
    },
    /** The relation: line, when the window declares rate_relation and Relations is on. */
    async contextLines(tools: readonly ClientTool[]): Promise<(string | null)[]> {
      if (!tools.some((t) => t.switchId === "relations")) return [];
      return [relationLineFor(kv, presetId, openPresets(kv))];
    },
  };
}
