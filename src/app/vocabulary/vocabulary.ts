/**
 * The expression vocabulary: emotions, motions, the user's expression-motion selection and the voice
 * engine (docs/vocabulary.md). Pure: loading from disk lives in the host.
 */
import { type Vocabulary, vocabularySchema } from "../../protocol/vocabulary.ts";
import defaults from "./default-vocabulary.json" with { type: "json" };

export { type Vocabulary, vocabularySchema } from "../../protocol/vocabulary.ts";
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
