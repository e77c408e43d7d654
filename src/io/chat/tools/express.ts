import { offeredMotions, type Vocabulary } from "../../../app/vocabulary/vocabulary.ts";
import type { ClientTool, JsonSchema } from "./client-tools.ts";

export const GENERATE_EXPRESS = "generate_express";

/** A cue: the expression placed on the speech around the call. Every field is optional. */
export interface Cue {
  emotion_id?: string;
  motion_id?: string;
  emotion_text?: string;
  caption?: string;
}

/**
 * Builds generate_express from the vocabulary loaded now: an OpenAI function schema whose enums are the
 * loaded ids. Cue-only (oneWay): it answers `ok`; the engine plays the cue where the call arrives.
 */
export function createGenerateExpressTool(vocab: Vocabulary): ClientTool {
  const motions = offeredMotions(vocab);
  const properties: Record<string, JsonSchema> = {
    emotion_id: {
      type: "string",
      enum: vocab.emotions.map((e) => e.id),
      description: `Facial expression: ${vocab.emotions.map((e) => (e.description ? `${e.id} (${e.description})` : e.id)).join(", ")}.`,
    },
  };
  if (motions.length) {
    properties.motion_id = {
      type: "string",
      enum: motions.map((m) => m.id),
      description: `Body motion: ${motions.map((m) => (m.description ? `${m.id} (${m.description})` : m.id)).join(", ")}.`,
    };
  }
  properties.emotion_text =
    vocab.voice.mode === "enum"
      ? {
          type: "string",
          enum: vocab.voice.tags.map((t) => t.tag),
          description: `Voice tone tag: ${vocab.voice.tags.map((t) => `${t.tag} = ${t.meaning}`).join("; ")}.`,
        }
      : { type: "string", description: "Voice tone in a few words (e.g. softly, cheerful, whispering)." };
  properties.caption = {
    type: "string",
    description: "Free-text voice direction for the speech around the call.",
  };

  const what = motions.length ? "face, body motion, voice tone" : "face, voice tone";
  return {
    name: GENERATE_EXPRESS,
    description:
      `Places an expression cue (${what}) on your speech at the point of the call: call it where the feeling ` +
      "shows, before or between sentences. Every field is optional. It answers ok and needs no reply.",
    parameters: { type: "object", properties, additionalProperties: false },
    oneWay: true,
    run: async () => "ok",
  };
}
