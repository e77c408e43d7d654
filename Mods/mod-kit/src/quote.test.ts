import { describe, expect, it } from "vitest";
import { QUOTE_MAX, quoteInput } from "./quote.ts";

describe("quoteInput", () => {
  it("quotes a short input whole", () => {
    expect(quoteInput("Firefox")).toBe("Firefox");
    expect(quoteInput("x".repeat(QUOTE_MAX))).toBe("x".repeat(QUOTE_MAX));
  });

  it("cuts a long input to its first characters, marks the cut and names the whole length", () => {
    const big = `${"a".repeat(QUOTE_MAX)}${"b".repeat(1 << 20)}`;
    expect(quoteInput(big)).toBe(`${"a".repeat(QUOTE_MAX)}…(${big.length} characters)`);
    expect(quoteInput("abcdef", 3)).toBe("abc…(6 characters)");
  });

  it("never leaves half a surrogate pair at the cut", () => {
    // "😀" is two UTF-16 units; a cut after 3 units would split the second one.
    expect(quoteInput("😀😀😀", 3)).toBe("😀…(6 characters)");
    expect(quoteInput("😀😀😀", 4)).toBe("😀😀…(6 characters)");
  });
});
