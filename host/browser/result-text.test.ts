import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BROWSER_RESULT,
  droppedShotsNote,
  OVERLAP_NOTE,
  RESULT_CAP_BYTES,
  TRUNCATED_MARK,
  UNTRUSTED_LINE,
  unreadableShotsNote,
} from "../../src/io/browser/results.ts";
import { composeScriptText, cutUtf8, OutputCollector } from "./result-text.ts";

const bytes = (s: string) => Buffer.byteLength(s, "utf8");

describe("composeScriptText", () => {
  it("gives a success the untrusted line, then the output, and no status line", () => {
    expect(composeScriptText({ output: "hello\nworld\n" })).toBe(`${UNTRUSTED_LINE}\nhello\nworld`);
  });

  it("starts a failure with its status line and keeps the exit line", () => {
    const output = "Error: boom\nego-browser: exited with code 1\n";
    expect(composeScriptText({ status: BROWSER_RESULT.failed, output })).toBe(
      `${BROWSER_RESULT.failed}\n${UNTRUSTED_LINE}\nError: boom\nego-browser: exited with code 1`,
    );
  });

  it("puts the screenshot notes after the output", () => {
    const notes = [droppedShotsNote(2), unreadableShotsNote(["003.png"])];
    expect(composeScriptText({ output: "x", notes })).toBe(`${UNTRUSTED_LINE}\nx\n${notes[0]}\n${notes[1]}`);
  });

  it("cuts output past 64 KiB, ends it with [truncated], and keeps status, untrusted line, exit line and notes", () => {
    const exit = "ego-browser: exited with code 1";
    const notes = [droppedShotsNote(3)];
    const text = composeScriptText({
      status: BROWSER_RESULT.failed,
      output: `${"a".repeat(100_000)}\n${exit}\n`,
      exitLine: exit,
      notes,
    });
    expect(bytes(text)).toBeLessThanOrEqual(RESULT_CAP_BYTES);
    expect(bytes(text)).toBeGreaterThan(RESULT_CAP_BYTES - 8);
    expect(text.startsWith(`${BROWSER_RESULT.failed}\n${UNTRUSTED_LINE}\naaa`)).toBe(true);
    expect(text.endsWith(`a\n${TRUNCATED_MARK}\n${exit}\n${notes[0]}`)).toBe(true);
  });

  it("puts the overlap note after the status line and before the untrusted line, and never cuts it", () => {
    expect(composeScriptText({ overlap: OVERLAP_NOTE, output: "x" })).toBe(
      `${OVERLAP_NOTE}\n${UNTRUSTED_LINE}\nx`,
    );
    const exit = "ego-browser: exited with code 1";
    const notes = [droppedShotsNote(1)];
    const text = composeScriptText({
      status: BROWSER_RESULT.failed,
      overlap: OVERLAP_NOTE,
      output: `${"é".repeat(60_000)}\n${exit}\n`,
      exitLine: exit,
      notes,
    });
    expect(bytes(text)).toBeLessThanOrEqual(RESULT_CAP_BYTES);
    expect(text.startsWith(`${BROWSER_RESULT.failed}\n${OVERLAP_NOTE}\n${UNTRUSTED_LINE}\néé`)).toBe(true);
    expect(text.endsWith(`é\n${TRUNCATED_MARK}\n${exit}\n${notes[0]}`)).toBe(true);
  });

  it("cuts output that was too large to keep in memory even if the kept part would fit", () => {
    const text = composeScriptText({ output: "abc", overflow: true });
    expect(text).toBe(`${UNTRUSTED_LINE}\nabc\n${TRUNCATED_MARK}`);
  });

  it("never splits a UTF-8 character at the cap", () => {
    // Room for exactly (cap - fixed) bytes of output: fill all but one byte with ASCII, then 4-byte characters.
    const fixed = bytes(`${UNTRUSTED_LINE}\n`) + bytes(`\n${TRUNCATED_MARK}`);
    const room = RESULT_CAP_BYTES - fixed;
    const text = composeScriptText({ output: `${"a".repeat(room - 1)}${"😀".repeat(10)}` });
    expect(text).toBe(`${UNTRUSTED_LINE}\n${"a".repeat(room - 1)}\n${TRUNCATED_MARK}`);
  });

  it("holds the cap and keeps characters whole for any output (property)", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", minLength: 0, maxLength: 30_000 }),
        fc.integer({ min: 1, max: 4 }),
        (chunk, repeat) => {
          const output = chunk.repeat(repeat * 3);
          const notes = [unreadableShotsNote(["001.png"])];
          const text = composeScriptText({ status: BROWSER_RESULT.deadline, output, notes });
          expect(bytes(text)).toBeLessThanOrEqual(RESULT_CAP_BYTES);
          expect(text.startsWith(`${BROWSER_RESULT.deadline}\n${UNTRUSTED_LINE}`)).toBe(true);
          expect(text.endsWith(notes[0]!)).toBe(true);
          // Re-encoding changes nothing: no half character turned into a replacement mark.
          expect(Buffer.from(text, "utf8").toString("utf8")).toBe(text);
          if (bytes(output) + 400 > RESULT_CAP_BYTES) expect(text).toContain(TRUNCATED_MARK);
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("cutUtf8", () => {
  it("backs off to the start of a character the cut would split", () => {
    expect(cutUtf8("ab€", 4)).toBe("ab");
    expect(cutUtf8("ab€", 5)).toBe("ab€");
    expect(cutUtf8("😀😀", 7)).toBe("😀");
  });
});

describe("OutputCollector", () => {
  it("sees a line ending in [yui] deadline split across chunks, and the exit line", () => {
    const out = new OutputCollector();
    for (const part of ["log 1\nscript: [yui] dead", "line\nego-browser: exited with code 124", "\n"]) {
      out.push(Buffer.from(part));
    }
    out.finish();
    expect(out.sawDeadline).toBe(true);
    expect(out.exitLine()).toBe("ego-browser: exited with code 124");
  });

  it("does not take [yui] deadline in the middle of a line for the deadline", () => {
    const out = new OutputCollector();
    out.push(Buffer.from("console.log('[yui] deadline soon')\n"));
    out.finish();
    expect(out.sawDeadline).toBe(false);
    expect(out.exitLine()).toBeUndefined();
  });

  it("keeps a bounded head and counts what it left out", () => {
    const out = new OutputCollector();
    const mib = Buffer.alloc(1024 * 1024, 0x61);
    out.push(mib);
    out.push(mib);
    const { output, overflow } = out.text();
    expect(output.length).toBe(1024 * 1024);
    expect(overflow).toBe(true);
    expect(out.total).toBe(2 * 1024 * 1024);
  });
});
