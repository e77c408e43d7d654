import { describe, expect, it } from "vitest";
import { CappedBytes, completeUtf8Length } from "./utf8.ts";

const enc = (s: string) => Buffer.from(s, "utf8");

describe("completeUtf8Length", () => {
  it("keeps whole ASCII and whole multi-byte characters", () => {
    expect(completeUtf8Length(enc("abc"))).toBe(3);
    expect(completeUtf8Length(enc("aé"))).toBe(3);
    expect(completeUtf8Length(enc("a€"))).toBe(4);
    expect(completeUtf8Length(enc("a😀"))).toBe(5);
  });

  it("drops a character cut short at every possible point", () => {
    for (const ch of ["é", "€", "😀"]) {
      const full = enc(`ab${ch}`);
      for (let cut = 3; cut < full.length; cut++) {
        expect(completeUtf8Length(full.subarray(0, cut)), `${ch} cut at ${cut}`).toBe(2);
      }
    }
  });

  it("keeps stray continuation bytes (invalid input is not a cut)", () => {
    expect(completeUtf8Length(Buffer.from([0x61, 0x80, 0x80, 0x80, 0x80, 0x80]))).toBe(6);
  });

  it("handles an empty buffer", () => {
    expect(completeUtf8Length(Buffer.alloc(0))).toBe(0);
  });
});

describe("CappedBytes", () => {
  it("keeps everything under the cap and is not truncated", () => {
    const c = new CappedBytes(10);
    c.push(enc("héllo"));
    expect(c.text()).toBe("héllo");
    expect(c.truncated).toBe(false);
  });

  it("never splits a character at the cap, across chunk boundaries too", () => {
    // "aaaa" + "😀" is 8 bytes; a cap of 6 falls inside the emoji.
    const c = new CappedBytes(6);
    c.push(enc("aaa"));
    c.push(enc("a😀"));
    c.push(enc("more"));
    expect(c.truncated).toBe(true);
    expect(c.text()).toBe("aaaa");
  });

  it("keeps a character that ends exactly at the cap", () => {
    const c = new CappedBytes(8);
    c.push(enc("aaaa😀b"));
    expect(c.truncated).toBe(true);
    expect(c.text()).toBe("aaaa😀");
  });

  it("shows invalid bytes as replacement characters instead of failing", () => {
    const c = new CappedBytes(100);
    c.push(Buffer.from([0x61, 0xff, 0x62]));
    expect(c.text()).toBe("a\uFFFDb");
  });
});
