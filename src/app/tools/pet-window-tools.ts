import type { ClientTool } from "../../io/chat/tools/client-tools.ts";

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
