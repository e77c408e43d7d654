/**
 * address_character (spec: client-tools.md, "address_character"): names the character this reply is for,
 * so that character receives a turn after the reply's playback. `to` lists the other open presets' names,
 * read when the schema is built (this factory's call); the user is never a target. No switch.
 */

import { z } from "zod";
import type { ClientTool } from "../../io/chat/tools/client-tools.ts";
import { declaredParameters, oneOf } from "../../io/chat/tools/schema.ts";
import type { CharacterRef, RecordResult } from "../addressing/addressing.ts";
import { characterChoices, type PresetRef } from "../presets/presets.ts";

/** Every exact result string of address_character. */
export const ADDRESS_CHARACTER_RESULTS = {
  ok: "ok",
  alreadyAddressed: (name: string) => `ignored: already addressed ${name}`,
  unknownTarget: "error: unknown target",
} as const;

export const ADDRESS_CHARACTER_NAME = "address_character";

/** What address_character needs from its window. */
export interface AddressCharacterDeps {
  /** The presets open now (main's active preset and the pet windows); read once, when the schema is built. */
  openPresets: () => PresetRef[];
  /** The calling window's preset: never its own target. */
  presetId: string;
  /** Records the recipient on the turn: the window's `Addressing` (src/app/turn/addressing.ts). */
  addressing: { record(turnId: string, to: CharacterRef, label: string): RecordResult };
}

/**
 * address_character's arguments for these choices: the one source of its declared schema and its check. With no
 * other character open, `to` declares no enum (some providers refuse an empty one) and every call answers
 * error: unknown target.
 */
export function addressArgs(labels: readonly string[]) {
  const to = labels.length > 0 ? oneOf(labels) : z.string();
  return z.strictObject({
    to: to.describe("the name of the other open character this reply speaks to"),
  });
}

/** Builds address_character for one window; call it whenever the schema is built (each turn, each push hello). */
export function createAddressCharacterTool(deps: AddressCharacterDeps): ClientTool {
  const open = deps.openPresets();
  const choices = characterChoices(open, deps.presetId);
  const byLabel = new Map(choices.map((c) => [c.label, c]));
  const names = new Map(open.map((p) => [p.id, p.name]));
  const args = addressArgs(choices.map((c) => c.label));

  return {
    name: ADDRESS_CHARACTER_NAME,
    description:
      "Names the character this reply is for, so that character receives a turn after the reply's playback. One call per reply.",
    parameters: declaredParameters(args),
    run: async (call, ctx) => {
      const R = ADDRESS_CHARACTER_RESULTS;
      const to = args.shape.to.safeParse(call.to);
      const choice = to.success ? byLabel.get(to.data) : undefined;
      if (!choice) return R.unknownTarget;
      const result = deps.addressing.record(
        ctx.turnId,
        { id: choice.id, name: names.get(choice.id)! },
        choice.label,
      );
      return result.kind === "ok" ? R.ok : R.alreadyAddressed(result.label);
    },
  };
}
