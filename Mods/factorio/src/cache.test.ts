import { describe, expect, it } from "vitest";
import { EventCache } from "./cache.ts";

const ev = (seq: number, kind = "chat") => ({ seq, tick: seq * 10, kind });

describe("event cache", () => {
  it("keeps the newest 5000 events", () => {
    const c = new EventCache();
    for (let i = 1; i <= 6000; i += 200) c.add(Array.from({ length: 200 }, (_, j) => ev(i + j)));
    expect(c.size).toBe(5000);
    expect(c.after(0)[0]!.seq).toBe(1001);
    expect(c.newestSeq).toBe(6000);
  });

  it("pages contiguously and stops at a seq gap", () => {
    const c = new EventCache();
    c.add([ev(1), ev(2), ev(3), ev(7), ev(8)]);
    expect(c.page(0, 200).events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(c.page(0, 200).more).toBe(true);
    expect(c.page(3, 200).events.map((e) => e.seq)).toEqual([7, 8]);
    expect(c.page(1, 1)).toEqual({ events: [ev(2)], more: true });
    expect(c.page(8, 200)).toEqual({ events: [], more: false });
  });

  it("drops events above a rollback head and ignores replays of older seqs", () => {
    const c = new EventCache();
    c.add([ev(1), ev(2), ev(3)]);
    c.add([ev(2)]);
    expect(c.size).toBe(3);
    c.dropAbove(1);
    expect(c.after(0).map((e) => e.seq)).toEqual([1]);
    c.clear();
    expect(c.newestSeq).toBeUndefined();
  });
});
