import { describe, expect, it } from "vitest";
import { createSegmenter, type Segment } from "./segmenter.ts";

/** Feeds `text` in chunks of `size`, then flushes; every segment in order. */
const cut = (text: string, size = 3, maxChars?: number): Segment[] => {
  const s = createSegmenter({ maxChars });
  const out: Segment[] = [];
  for (let i = 0; i < text.length; i += size) out.push(...s.push(text.slice(i, i + size)));
  out.push(...s.flush());
  return out;
};

describe("segmenter", () => {
  it("cuts at sentence ends as the text streams, offsets in the reply text", () => {
    const text = "Hello there! How are you? I'm fine.";
    const segs = cut(text);
    expect(segs.map((s) => s.text)).toEqual(["Hello there!", "How are you?", "I'm fine."]);
    expect(segs.map((s) => [s.start, s.end])).toEqual([
      [0, 12],
      [12, 25],
      [25, 35],
    ]);
    expect(segs.map((s) => s.index)).toEqual([0, 1, 2]);
    for (const s of segs) expect(text.slice(s.start, s.end).trim()).toBe(s.text);
  });

  it("emits a sentence as soon as the space after it arrives, not before", () => {
    const s = createSegmenter();
    expect(s.push("It costs 3.")).toEqual([]);
    expect(s.push("50 today.")).toEqual([]);
    expect(s.push(" Nice")).toEqual([{ index: 0, text: "It costs 3.50 today.", start: 0, end: 20 }]);
    expect(s.flush().map((x) => x.text)).toEqual(["Nice"]);
  });

  it("cuts Japanese and Chinese at 。！？ without a space, and keeps closing brackets", () => {
    expect(cut("こんにちは。元気？「うん！」そうだね", 2).map((s) => s.text)).toEqual([
      "こんにちは。",
      "元気？",
      "「うん！」",
      "そうだね",
    ]);
  });

  it("cuts at line breaks and skips what has nothing to say", () => {
    expect(cut("First line\n\n- second *item*\n...\n", 4).map((s) => s.text)).toEqual([
      "First line",
      "- second item",
    ]);
  });

  it("caps long text at the last comma or space before the cap, else hard", () => {
    const long = "one, two three four five six seven eight nine ten eleven twelve thirteen fourteen";
    const segs = cut(long, 5, 30);
    for (const s of segs) expect(s.end - s.start).toBeLessThanOrEqual(30);
    expect(segs.map((s) => s.text).join(" ")).toBe(long);
    expect(segs[0]!.text).toBe("one, two three four five six");
    const solid = "x".repeat(70);
    expect(cut(solid, 7, 30).map((s) => s.text.length)).toEqual([30, 30, 10]);
  });

  it("starts over after reset", () => {
    const s = createSegmenter();
    s.push("Half a sent");
    s.reset();
    expect(s.push("New one. ")).toEqual([{ index: 0, text: "New one.", start: 0, end: 8 }]);
  });
});
