import { z } from "zod";
import { type ClientTool, GENERATE_EXPRESS } from "../../io/chat/tools/client-tools.ts";
import { declaredParameters, oneOf, type ToolArgs } from "../../io/chat/tools/schema.ts";
import { type Motion, offeredMotions, type Vocabulary } from "../vocabulary/vocabulary.ts";

export { GENERATE_EXPRESS };

/** Every field a cue can carry, with the enums of the vocabulary loaded now. */
function cueObject(vocab: Vocabulary, motions: Motion[]) {
  const listed = (items: { id: string; description?: string }[]) =>
    items.map((e) => (e.description ? `${e.id} (${e.description})` : e.id)).join(", ");
  return z.strictObject({
    emotion_id: oneOf(vocab.emotions.map((e) => e.id))
      .describe(`Facial expression: ${listed(vocab.emotions)}.`)
      .optional(),
    motion_id: oneOf(motions.map((m) => m.id))
      .describe(`Body motion: ${listed(motions)}.`)
      .optional(),
    emotion_text: (vocab.voice.mode === "enum"
      ? oneOf(vocab.voice.tags.map((t) => t.tag)).describe(
          `Voice tone tag: ${vocab.voice.tags.map((t) => `${t.tag} = ${t.meaning}`).join("; ")}.`,
        )
      : z.string().describe("Voice tone in a few words (e.g. softly, cheerful, whispering).")
    ).optional(),
    caption: z.string().describe("Free-text voice direction for the speech around the call.").optional(),
  });
}

/**
 * generate_express's arguments, read from the vocabulary loaded now: the one source of its declared schema.
 * Every field is optional; motion_id is left out when no motion is offered (an empty selection).
 */
export function cueArgs(vocab: Vocabulary): ToolArgs {
  const motions = offeredMotions(vocab);
  const args = cueObject(vocab, motions);
  return motions.length ? args : args.omit({ motion_id: true });
}

/**
 * Builds generate_express from the vocabulary loaded now: an OpenAI function schema whose enums are the
 * loaded ids. Cue-only (oneWay): it answers `ok`; the engine plays the cue where the call arrives.
 */
export function createGenerateExpressTool(vocab: Vocabulary): ClientTool {
  const motions = offeredMotions(vocab);
  const what = motions.length ? "face, body motion, voice tone" : "face, voice tone";
  return {
    name: GENERATE_EXPRESS,
    description:
      `Places an expression cue (${what}) on your speech at the point of the call: call it where the feeling ` +
      "shows, before or between sentences. Every field is optional. It answers ok and needs no reply.",
    parameters: declaredParameters(cueArgs(vocab)),
    oneWay: true,
    run: async () => "ok",
  };
}
