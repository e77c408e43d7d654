/**
 * Cuts a reply's streamed text into segments to speak (docs/voice.md#segments): at sentence ends (. ! ? …
 * followed by a space, 。！？ at once, closing quotes and brackets kept), at line breaks, and at a length cap
 * (at the last comma or space before it, else hard). Offsets are the reply text's, so cues anchored to a
 * text position fall in the segment that holds it: whitespace after a sentence starts the next segment.
 */

/** One segment: `text` to speak, `[start, end)` in the reply text. */
export interface Segment {
  index: number;
  text: string;
  start: number;
  end: number;
}

export interface Segmenter {
  /** Appends streamed text; returns the segments it completed. */
  push(delta: string): Segment[];
  /** The reply ended: returns what is left as a last segment. */
  flush(): Segment[];
  reset(): void;
}

/** The default length cap in characters. */
export const SEGMENT_MAX_CHARS = 220;

const WIDE_END = /[。！？!?．｡]/;
const NARROW_END = /[.!?…]/;
const CLOSERS = /["'”’」』）)\]】〉》]/;
const SOFT_BREAK = /[,;:、，；：\s]/;

/** What is read aloud of a segment: markdown marks and URLs dropped, whitespace folded. */
export function speakable(text: string): string {
  return text
    .replace(/https?:\/\/\S+/g, " ")
    .replace(/[*_`#>~|]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** True when a segment has something to say (letters or digits of any script). */
const sayable = (t: string) => /[\p{L}\p{N}]/u.test(t);

export function createSegmenter(opts: { maxChars?: number } = {}): Segmenter {
  const max = Math.max(20, opts.maxChars ?? SEGMENT_MAX_CHARS);
  let text = "";
  let from = 0;
  let index = 0;

  const emit = (end: number, out: Segment[]) => {
    const said = speakable(text.slice(from, end));
    if (sayable(said)) out.push({ index: index++, text: said, start: from, end });
    from = end;
  };

  /** The end (exclusive) of the first complete sentence at or after `from`, or -1. */
  const sentenceEnd = (): number => {
    for (let i = from; i < text.length; i++) {
      const c = text[i]!;
      if (c === "\n") return i + 1;
      const wide = WIDE_END.test(c);
      if (!wide && !NARROW_END.test(c)) continue;
      let j = i + 1;
      while (
        j < text.length &&
        (NARROW_END.test(text[j]!) || WIDE_END.test(text[j]!) || CLOSERS.test(text[j]!))
      )
        j++;
      if (wide && c !== "!" && c !== "?") return j;
      if (j >= text.length) return -1; // "3." might be "3.14": wait for the next character
      if (/\s/.test(text[j]!) || WIDE_END.test(c)) return j;
      i = j - 1;
    }
    return -1;
  };

  const drain = (out: Segment[]) => {
    for (;;) {
      const end = sentenceEnd();
      if (end > 0 && end - from <= max) {
        emit(end, out);
        continue;
      }
      if (text.length - from <= max) return;
      // Over the cap: cut at the last soft break before it, else at the cap.
      let cut = from + max;
      for (let k = from + max - 1; k > from + max / 2; k--) {
        if (SOFT_BREAK.test(text[k]!)) {
          cut = k + 1;
          break;
        }
      }
      emit(cut, out);
    }
  };

  return {
    push(delta) {
      text += delta;
      const out: Segment[] = [];
      drain(out);
      return out;
    },
    flush() {
      const out: Segment[] = [];
      drain(out);
      if (from < text.length) emit(text.length, out);
      return out;
    },
    reset() {
      text = "";
      from = 0;
      index = 0;
    },
  };
}
