import { describe, expect, it } from "vitest";
import { READ_LIMIT_DEFAULT_LINES, READ_WINDOW_MAX_BYTES } from "./limits.ts";
import { msg } from "./messages.ts";
import { exactReplace, lineWindow } from "./text.ts";

const numbered = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join("");

describe("lineWindow", () => {
  it("reads from line 1 by default and says it reached the end", () => {
    const w = lineWindow("a\nb\nc\n");
    expect(w).toEqual({
      content: "a\nb\nc\n",
      from: 1,
      to: 3,
      total_lines: 3,
      remaining_lines: 0,
      next_offset: null,
      note: msg.windowEnd(1, 3, 3),
    });
  });

  it("takes a 1-based offset and a limit, and says how many lines remain", () => {
    const w = lineWindow(numbered(10), 4, 3);
    expect(w.content).toBe("line 4\nline 5\nline 6\n");
    expect(w.remaining_lines).toBe(4);
    expect(w.next_offset).toBe(7);
    expect(w.note).toBe(msg.windowMore(4, 6, 10));
  });

  it("reading on from next_offset covers the file exactly once", () => {
    const text = numbered(25);
    let got = "";
    let offset: number | null = 1;
    while (offset !== null) {
      const w = lineWindow(text, offset, 7);
      got += w.content;
      offset = w.next_offset;
    }
    expect(got).toBe(text);
  });

  it("counts a last line without a newline, and keeps CRLF endings as they are", () => {
    expect(lineWindow("a\nb").total_lines).toBe(2);
    expect(lineWindow("a\nb", 2).content).toBe("b");
    expect(lineWindow("a\r\nb\r\n", 1, 1).content).toBe("a\r\n");
  });

  it("returns the default number of lines when no limit is given", () => {
    const w = lineWindow(numbered(READ_LIMIT_DEFAULT_LINES + 5));
    expect(w.to).toBe(READ_LIMIT_DEFAULT_LINES);
    expect(w.remaining_lines).toBe(5);
  });

  it("answers an empty file with an empty window", () => {
    expect(lineWindow("").note).toBe(msg.windowEmpty());
    expect(() => lineWindow("", 2)).toThrow(msg.offsetPastEnd(2, 0));
  });

  it("refuses an offset past the end with the line count", () => {
    expect(() => lineWindow("a\nb\n", 3)).toThrow(msg.offsetPastEnd(3, 2));
    expect(() => lineWindow("a\n", 2)).toThrow(msg.offsetPastEnd(2, 1));
  });

  it("stops a window at the last whole line under the byte cap", () => {
    const line = `${"x".repeat(999)}\n`; // 1000 bytes
    const w = lineWindow(line.repeat(250), 1, 250);
    expect(Buffer.byteLength(w.content)).toBeLessThanOrEqual(READ_WINDOW_MAX_BYTES);
    expect(w.to).toBe(READ_WINDOW_MAX_BYTES / 1000);
    expect(w.next_offset).toBe(w.to + 1);
  });

  it("refuses a single line longer than the byte cap, pointing at run", () => {
    const text = `short\n${"y".repeat(READ_WINDOW_MAX_BYTES + 1)}\n`;
    expect(() => lineWindow(text, 2)).toThrow(msg.lineTooLong(2, READ_WINDOW_MAX_BYTES));
    expect(lineWindow(text, 1, 1).content).toBe("short\n");
  });
});

describe("exactReplace", () => {
  it("replaces a unique match", () => {
    expect(exactReplace("one two three", "two", "2", false, "f")).toEqual({ text: "one 2 three", count: 1 });
  });

  it("refuses zero matches with the count", () => {
    expect(() => exactReplace("abc", "x", "y", false, "f.txt")).toThrow(msg.noMatch("f.txt"));
    expect(() => exactReplace("abc", "x", "y", true, "f.txt")).toThrow(msg.noMatch("f.txt"));
  });

  it("refuses several matches with the count unless replace_all", () => {
    expect(() => exactReplace("a-a-a", "a", "b", false, "f.txt")).toThrow(msg.manyMatches("f.txt", 3));
    expect(exactReplace("a-a-a", "a", "b", true, "f.txt")).toEqual({ text: "b-b-b", count: 3 });
  });

  it("treats $ patterns in the replacement literally", () => {
    expect(exactReplace("price", "price", "$& $1 $$", false, "f").text).toBe("$& $1 $$");
  });

  it("matches exactly: whitespace and case count", () => {
    expect(() => exactReplace("Hello  world", "hello world", "x", false, "f")).toThrow(msg.noMatch("f"));
  });

  it("refuses an empty old and an edit that changes nothing", () => {
    expect(() => exactReplace("abc", "", "x", false, "f")).toThrow(msg.oldEmpty());
    expect(() => exactReplace("abc", "b", "b", false, "f")).toThrow(msg.oldEqualsNew());
  });

  it("counts non-overlapping matches, as replace_all replaces them", () => {
    expect(() => exactReplace("aaaa", "aa", "b", false, "f")).toThrow(msg.manyMatches("f", 2));
    expect(exactReplace("aaa", "aa", "b", false, "f").text).toBe("ba");
  });
});
