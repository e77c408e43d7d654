import { describe, expect, it } from "vitest";
import { wer, wordEdits, words } from "./wer.ts";

describe("word error rate", () => {
  it("compares words lower-cased without punctuation", () => {
    expect(words("Hello, there! It's 5 o'clock.")).toEqual(["hello", "there", "it's", "5", "o'clock"]);
    expect(wer([{ ref: "Hello, there!", hyp: "hello there" }]).rate).toBe(0);
  });

  it("counts substitutions, insertions and deletions", () => {
    expect(wordEdits(["a", "b", "c"], ["a", "x", "c"])).toBe(1);
    expect(wordEdits(["a", "b", "c"], ["a", "b", "c", "d"])).toBe(1);
    expect(wordEdits(["a", "b", "c"], ["a", "c"])).toBe(1);
    expect(wordEdits(["a", "b"], [])).toBe(2);
    expect(wordEdits([], ["a"])).toBe(1);
  });

  it("pools utterances: total edits over total reference words", () => {
    const r = wer([
      { ref: "he was not an ill disposed young man", hyp: "he was not an illness those young man" },
      { ref: "what time is it", hyp: "what time is it" },
    ]);
    // "ill disposed" heard as "illness those": two substitutions.
    expect(r).toEqual({ rate: 2 / 12, edits: 2, words: 12 });
  });
});
