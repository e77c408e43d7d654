// Property decoding on values as the X server hands them; the COMPOUND_TEXT bytes were recorded from Xlib
// (`xprop -f WM_NAME 8t -set WM_NAME <title>` under C.UTF-8, read back with GetProperty).
import { describe, expect, it } from "vitest";
import {
  atomNames,
  cardinals,
  compoundText,
  type PropertyValue,
  text,
  windowIds,
  wmClass,
} from "./decode.ts";

const TYPES = { utf8: 300, string: 31, compound: 301 };
const words = (...n: number[]): PropertyValue => {
  const data = Buffer.alloc(4 * n.length);
  for (const [i, v] of n.entries()) data.writeUInt32LE(v, 4 * i);
  return { type: 6, format: 32, data };
};
const bytes = (type: number, data: Buffer | string): PropertyValue => ({
  type,
  format: 8,
  data: typeof data === "string" ? Buffer.from(data, "utf8") : data,
});
const MISSING: PropertyValue = { type: 0, format: 0, data: Buffer.alloc(0) };

describe("format-32 values", () => {
  it("cardinals, window ids as xprop writes them (none dropped), atoms by the names known", () => {
    expect(cardinals(words(0, 30, 3200, 1170))).toEqual([0, 30, 3200, 1170]);
    expect(cardinals(MISSING)).toEqual([]);
    expect(cardinals(bytes(31, "abcd"))).toEqual([]);
    expect(windowIds(words(0x60000a, 0, 0x40000c))).toEqual(["0x60000a", "0x40000c"]);
    expect(atomNames(words(7, 8, 9), new Map([[8, "_NET_WM_STATE_HIDDEN"]]))).toEqual([
      "_NET_WM_STATE_HIDDEN",
    ]);
  });
});

describe("text values", () => {
  it.each([
    ["UTF8_STRING", bytes(300, "term one ✓"), "term one ✓"],
    ["STRING is Latin-1", bytes(31, Buffer.from([0x63, 0x61, 0x66, 0xe9])), "café"],
    ["a terminating NUL", bytes(300, "title\0"), "title"],
    ["empty", bytes(300, ""), ""],
    ["missing", MISSING, null],
  ])("%s", (_n, p, out) => expect(text(p, TYPES)).toBe(out));

  it("WM_CLASS: instance and class; one string is both", () => {
    expect(wmClass(bytes(31, "xterm\0XTerm\0"), TYPES)).toEqual({ instance: "xterm", cls: "XTerm" });
    expect(wmClass(bytes(31, "single\0"), TYPES)).toEqual({ instance: "single", cls: "single" });
    expect(wmClass(MISSING, TYPES)).toBeNull();
  });

  it.each([
    ["Latin-1 and UTF-8 and JIS X 0208", "6e61ef7665201b2547e29c931b2540201b2428424c3e4130", "naïve ✓ 名前"],
    ["ISO 8859-7 and -5 right halves", "1b2d46d96d656761201b2d4cd6", "Ωmega ж"],
    ["JIS X 0208", "1b242842467c4b5c386c2546252d25392548", "日本語テキスト"],
    ["KS C 5601", "1b242843475131393e6e", "한국어"],
    ["plain Latin-1", "636166e9", "café"],
  ])("COMPOUND_TEXT: %s", (_n, hex, out) => {
    expect(compoundText(Buffer.from(hex, "hex"))).toBe(out);
    expect(text(bytes(301, Buffer.from(hex, "hex")), TYPES)).toBe(out);
  });
});
