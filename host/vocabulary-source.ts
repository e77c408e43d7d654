import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_VOCABULARY, parseVocabulary, type Vocabulary } from "../src/app/vocabulary/vocabulary.ts";
import { dataDir } from "./paths.ts";

/** The user's vocabulary file in the data directory. */
export const VOCABULARY_FILE = "vocabulary.json";

/**
 * A vocabulary read from a file and re-read when the file changes (checked on every call, one stat);
 * use it as the turn sender's `vocabulary`. A missing file gives the shipped defaults; an invalid file
 * is refused through onError and the last good vocabulary stays in force.
 */
export function fileVocabulary(
  file: string = join(dataDir(), VOCABULARY_FILE),
  onError: (message: string) => void = (m) => process.stderr.write(`${m}\n`),
): () => Vocabulary {
  let current: Vocabulary = DEFAULT_VOCABULARY;
  let seen = "";
  return () => {
    let stamp: string;
    try {
      const st = statSync(file);
      stamp = `${st.mtimeMs}:${st.size}`;
    } catch {
      stamp = "missing";
    }
    if (stamp === seen) return current;
    seen = stamp;
    if (stamp === "missing") {
      current = DEFAULT_VOCABULARY;
      return current;
    }
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      onError(`${file}: cannot read: ${(e as Error).message}; keeping the last good vocabulary`);
      return current;
    }
    const r = parseVocabulary(text, file);
    if (r.ok) current = r.value;
    else onError(`${r.error}; keeping the last good vocabulary`);
    return current;
  };
}
