import { describe, expect, it } from "vitest";
import { SpaceLocks } from "./space-lock.ts";

describe("SpaceLocks", () => {
  it("hands one name's lock to waiters in arrival order, one at a time", async () => {
    const locks = new SpaceLocks();
    const order: string[] = [];
    const first = await locks.acquire("yui-a");
    const note = (name: string) => (release: () => void) => {
      order.push(name);
      return release;
    };
    const second = locks.acquire("yui-a").then(note("second"));
    const third = locks.acquire("yui-a").then(note("third"));
    await Promise.resolve();
    expect(order).toEqual([]);
    first();
    (await second)();
    (await third)();
    expect(order).toEqual(["second", "third"]);
    expect(locks.isHeld("yui-a")).toBe(false);
  });

  it("lets different names be held at once", async () => {
    const locks = new SpaceLocks();
    const a = await locks.acquire("yui-a");
    const b = await locks.acquire("yui-b");
    expect(locks.isHeld("yui-a") && locks.isHeld("yui-b")).toBe(true);
    a();
    b();
  });

  it("drops a waiter whose signal aborts, and the next one still gets the lock", async () => {
    const locks = new SpaceLocks();
    const held = await locks.acquire("yui-a");
    const ac = new AbortController();
    const aborted = locks.acquire("yui-a", ac.signal);
    const next = locks.acquire("yui-a");
    ac.abort(new Error("gave up"));
    await expect(aborted).rejects.toThrow("gave up");
    held();
    (await next)();
    expect(locks.isHeld("yui-a")).toBe(false);
  });

  it("releases once however often release is called", async () => {
    const locks = new SpaceLocks();
    const held = await locks.acquire("yui-a");
    const next = locks.acquire("yui-a");
    const after = locks.acquire("yui-a");
    held();
    held();
    const second = await next;
    expect(locks.isHeld("yui-a")).toBe(true);
    second();
    (await after)();
  });
});
