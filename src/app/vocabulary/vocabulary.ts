/**
 * The expression vocabulary: emotions, motions, the user's expression-motion selection and the voice
 * engine (docs/vocabulary.md). Pure: loading from disk lives in the host.
 */
import { z } from "zod";
import defaults from "./default-vocabulary.json" with { type: "json" };

const id = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, "must be 1-64 characters: a-z, 0-9, _ or -");

const emotion = z
  .object({
    id,
    description: z.string().max(200).optional(),
    /** VRM expression name -> weight, 0..1, played by the avatar. */
    expression: z.record(z.string().min(1), z.number().min(0).max(1)).default({}),
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
export type Emotion = Vocabulary["emotions"][number];
export type Motion = Vocabulary["motions"][number];

/** The shipped vocabulary, which works with the default avatar. */
export const DEFAULT_VOCABULARY: Vocabulary = vocabularySchema.parse(defaults);

/** Parses vocabulary JSON text; the error names the file, the field and the problem. */
export function parseVocabulary(
  text: string,
  file: string,
): { ok: true; value: Vocabulary } | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `${file}: not valid JSON: ${(e as Error).message}` };
  }
  const r = vocabularySchema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  const issue = r.error.issues[0]!;
  const field = issue.path.length ? issue.path.join(".") : "(root)";
  return { ok: false, error: `${file}: field ${field}: ${issue.message}` };
}

/** The motion ids offered to the model: not reactive, not ambient, published, narrowed by the selection. */
export function offeredMotions(v: Vocabulary): Motion[] {
  const selected = v.motion_selection ? new Set(v.motion_selection) : null;
  return v.motions.filter(
    (m) => !m.reactive && !m.ambient && m.broker_publish && (!selected || selected.has(m.id)),
  );
}
