/**
 * The expression vocabulary's shape (docs/vocabulary.md): emotions, motions, the user's expression-motion
 * selection and the voice engine. The contract's: the host reads and writes the file, a window gets it over the
 * bridge (`vocabulary_get`), and the domain (src/app/vocabulary) reads it.
 */
import { z } from "zod";

/** Seconds an emotion's face holds after her speech stops when its vocabulary entry names no `hold`. */
export const FACE_HOLD_S = 4;

const id = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "must be 1-64 characters: a-z, 0-9, _ or -");

const emotion = z
  .object({
    id,
    description: z.string().max(200).optional(),
    /** VRM expression name -> weight, 0..1, played by the avatar. */
    expression: z.record(z.string().min(1), z.number().min(0).max(1)).default({}),
    /**
     * Seconds the face holds after her speech (or the reply's text) stops, before it eases back to her resting
     * face; default FACE_HOLD_S. 0 relaxes at once.
     */
    hold: z.number().min(0).max(600).optional(),
  })
  .strict();

const motion = z
  .object({
    id,
    description: z.string().max(200).optional(),
    /** Procedural clip id or a .vrma file name. */
    clip: z.string().min(1).optional(),
    /** Played by the client on its own (a reaction to a click); never offered to the model. */
    reactive: z.boolean().default(false),
    /** Idle variation played by the client; never offered to the model. */
    ambient: z.boolean().default(false),
    /** false keeps the motion out of the declared schema. */
    broker_publish: z.boolean().default(true),
  })
  .strict();

const voiceTag = z.object({ tag: z.string().min(1).max(64), meaning: z.string().max(200) }).strict();

const voice = z.discriminatedUnion("mode", [
  z.object({ engine: z.string().min(1), mode: z.literal("free") }).strict(),
  z.object({ engine: z.string().min(1), mode: z.literal("enum"), tags: z.array(voiceTag).min(1) }).strict(),
]);

export const vocabularySchema = z
  .object({
    version: z.literal(1),
    emotions: z.array(emotion).min(1),
    motions: z.array(motion),
    /** The motions the user lets the model use; null offers every eligible motion. */
    motion_selection: z.array(id).nullable().default(null),
    voice,
  })
  .strict()
  .superRefine((v, ctx) => {
    const dup = (list: { id: string }[], field: string) => {
      const seen = new Set<string>();
      list.forEach((e, i) => {
        if (seen.has(e.id))
          ctx.addIssue({ code: "custom", path: [field, i, "id"], message: `duplicate id "${e.id}"` });
        seen.add(e.id);
      });
    };
    dup(v.emotions, "emotions");
    dup(v.motions, "motions");
  });

export type Vocabulary = z.infer<typeof vocabularySchema>;
