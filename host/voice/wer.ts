/**
 * Word error rate: the word-level edit distance (substitutions, insertions, deletions) between a reference
 * transcript and a hypothesis, over the reference's length. Words are compared lower-cased without
 * punctuation, so "Hello, there!" and "hello there" are the same two words.
 */

/** The words of a transcript as compared: lower case, letters, digits and apostrophes. */
export function words(text: string): string[] {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}' ]+/gu, " ")
    .split(/\s+/)
    .filter(Boolean);
}

/** Edits (substitutions + insertions + deletions) from `ref` to `hyp`, word by word. */
export function wordEdits(ref: string[], hyp: string[]): number {
  let prev = Array.from({ length: hyp.length + 1 }, (_, j) => j);
  for (let i = 1; i <= ref.length; i++) {
    const row = [i];
    for (let j = 1; j <= hyp.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (ref[i - 1] === hyp[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[hyp.length]!;
}

/** Word error rate over several utterances: total edits over total reference words (0 for no words). */
export function wer(pairs: { ref: string; hyp: string }[]): { rate: number; edits: number; words: number } {
  let edits = 0;
  let n = 0;
  for (const p of pairs) {
    const r = words(p.ref);
    edits += wordEdits(r, words(p.hyp));
    n += r.length;
  }
  return { rate: n ? edits / n : 0, edits, words: n };
}
