import { describe, expect, it, vi } from "vitest";
import { harnessPerTest, waitFor } from "../host/browser/testing.ts";
import { createBrowserRelay } from "../src/io/browser/browser-relay.ts";
import { BROWSER_RESULT, UNTRUSTED_LINE } from "../src/io/browser/results.ts";

const harness = harnessPerTest();

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const sleepCode = (ms: number, label = "done") =>
  `await new Promise((r) => setTimeout(r, ${ms}));\nconsole.log(${JSON.stringify(label)});`;

describe("browser relay over the host's commands", () => {
  it("passes the host's result through: text, or text with images", async () => {
    const h = await harness();
    const relay = createBrowserRelay(h.invoke);
    const never = new AbortController().signal;
    expect(await relay.run("alice", 'console.log("hi")', never)).toBe(`${UNTRUSTED_LINE}\nhi`);
    const shot = await relay.run("alice", "await screenshot(await task.newPage());", never);
    expect(shot).toMatchObject({
      text: UNTRUSTED_LINE,
      images: [expect.stringMatching(/^data:image\/jpeg/)],
    });
  });

  it("answers turn stopped at once, lets the CLI run on, and holds the space until it exits, across a reload", async () => {
    const h = await harness();
    const relay = createBrowserRelay(h.invoke);
    const ac = new AbortController();
    const first = relay.run("alice", sleepCode(1_500), ac.signal);
    await waitFor(async () =>
      (await h.standin.events()).some((e) => e.event === "taskSpace") ? true : undefined,
    );
    ac.abort();
    expect(await first).toBe(BROWSER_RESULT.turnStopped);

    // A reloaded window brings a new relay; the lock is the host's, so the next call in the same space still
    // waits for the stopped run's CLI to exit before its script starts.
    const reloaded = createBrowserRelay(h.invoke);
    const second = await reloaded.run("alice", 'console.log("second")', new AbortController().signal);
    expect(second).toBe(`${UNTRUSTED_LINE}\nsecond`);
    const events = await h.standin.events();
    const exits = events.filter((e) => e.event === "exit");
    const spaces = events.filter((e) => e.event === "taskSpace");
    expect(exits.map((e) => e.code)).toEqual([0, 0]);
    expect(spaces[1]!.t).toBeGreaterThanOrEqual(exits[0]!.t);
  });

  it("counts the lock wait in the client's wait, and a call that gave up waiting never runs", async () => {
    const h = await harness();
    const patient = createBrowserRelay(h.invoke);
    const hasty = createBrowserRelay(h.invoke, { waitMs: 1_000 });
    const first = patient.run("alice", sleepCode(3_000, "first"), new AbortController().signal);
    await waitFor(async () =>
      (await h.standin.events()).some((e) => e.event === "taskSpace") ? true : undefined,
    );
    expect(await hasty.run("alice", 'console.log("second")', new AbortController().signal)).toBe(
      BROWSER_RESULT.unknown,
    );
    expect(await first).toBe(`${UNTRUSTED_LINE}\nfirst`);
    // The abandoned call left the queue: once the space is free nothing else starts in it.
    expect(h.config.locks.isHeld("yui-alice")).toBe(false);
    expect((await h.standin.events()).filter((e) => e.event === "received")).toHaveLength(1);
  });

  it("answers a turn that is already stopped without reaching the host", async () => {
    const h = await harness();
    const relay = createBrowserRelay(h.invoke);
    const ac = new AbortController();
    ac.abort();
    expect(await relay.run("alice", 'console.log("x")', ac.signal)).toBe(BROWSER_RESULT.turnStopped);
    expect(await relay.guide(ac.signal)).toBe(BROWSER_RESULT.turnStopped);
    expect(h.invocations()).toBe(0);
  });

  it("answers skill timed out when the client's wait passes during guide", async () => {
    const h = await harness({ env: { EGO_STANDIN_SKILL: "hang" }, config: { backstopMs: 3_000 } });
    const relay = createBrowserRelay(h.invoke, { waitMs: 1_000 });
    expect(await relay.guide(new AbortController().signal)).toBe(BROWSER_RESULT.skillTimedOut);
    // The host still kills the hung CLI at its backstop.
    const skill = await waitFor(async () => (await h.standin.events()).find((e) => e.event === "skill"));
    await waitFor(async () => (isRunning(skill.pid) ? undefined : true));
  });

  it("waits the spec's 32 s by default, then answers unknown", async () => {
    vi.useFakeTimers();
    try {
      // A host that never answers: only the client's wait can end the call.
      const relay = createBrowserRelay(() => new Promise(() => undefined));
      let settled = false;
      const answer = relay.run("alice", "x", new AbortController().signal).finally(() => {
        settled = true;
      });
      await vi.advanceTimersByTimeAsync(31_999);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await answer).toBe(BROWSER_RESULT.unknown);
    } finally {
      vi.useRealTimers();
    }
  });

  it("passes on a failure of the bridge itself as an error", async () => {
    const relay = createBrowserRelay(async () => {
      throw new Error("bridge closed");
    });
    await expect(relay.guide(new AbortController().signal)).rejects.toThrow("bridge closed");
  });
});
