import { describe, expect, it } from "vitest";
import { ManualClock } from "../test/manual-clock.ts";
import { Bridge } from "./bridge.ts";
import { DEFAULT_WAKE_KINDS } from "./config.ts";
import { Doorbell, WAKE_SIGNAL, type WakeGroup } from "./doorbell.ts";

// The spec's timings: 5 s to 300 s backoff, one reminder 300 s after the last 2xx.
const T = { coalesceMs: 1500, backoffMinMs: 5_000, backoffMaxMs: 300_000, remindMs: 300_000 };

function setup(statuses: (number | Error)[] = []) {
  const clock = new ManualClock();
  const bridge = new Bridge({
    rcon: { exec: () => Promise.reject(new Error("no game in this test")) },
    wakeKinds: new Set(DEFAULT_WAKE_KINDS),
    log: { write: () => {} },
    idPrefix: "t",
  });
  bridge.mapId = "m1";
  const posts: { group: WakeGroup; at: number }[] = [];
  let hold: Promise<void> | undefined;
  const bell = new Doorbell(
    bridge,
    async (group) => {
      posts.push({ group, at: clock.now() });
      if (hold) await hold;
      const s = statuses.shift() ?? 200;
      if (s instanceof Error) throw s;
      return s;
    },
    T,
    clock,
  );
  let seq = 0;
  const arrive = (kind: string, fields: Record<string, unknown> = {}) => {
    seq++;
    bridge.cache.add([{ seq, tick: seq, kind, ...fields }]);
    bridge.pollSeq = seq;
    if (DEFAULT_WAKE_KINDS.includes(kind as never)) bell.ring();
  };
  return {
    clock,
    bridge,
    bell,
    posts,
    arrive,
    holdPosts(p: Promise<void> | undefined) {
      hold = p;
    },
  };
}

const group = (over: Partial<WakeGroup>): WakeGroup => ({
  ...WAKE_SIGNAL,
  pending_from_seq: 1,
  pending_to_seq: 1,
  reset: false,
  note: "",
  ...over,
});

describe("doorbell", () => {
  it("coalesces wake events into one group after coalesce_ms, noting the newest unread chat line verbatim", async () => {
    const s = setup();
    s.arrive("player_joined", { player: "bob" });
    s.arrive("chat", { player: "alice", text: "yui, come here" });
    s.arrive("job_failed", { job_id: 3 });
    s.arrive("chat", { player: "bob", text: "  and bring coal!  " });
    await s.clock.advance(1499);
    expect(s.posts).toHaveLength(0);
    await s.clock.advance(1);
    expect(s.posts.map((p) => p.group)).toEqual([
      group({ pending_from_seq: 1, pending_to_seq: 4, note: "  and bring coal!  " }),
    ]);
  });

  it("notes the unread wake kinds when no chat line is unread; opt-in kinds never ring", async () => {
    const s = setup();
    s.arrive("job_done", { job_id: 1 });
    s.arrive("research_finished");
    await s.clock.advance(10_000);
    expect(s.posts).toHaveLength(0);
    s.arrive("job_failed");
    s.arrive("queue_idle");
    s.arrive("job_failed");
    await s.clock.advance(1500);
    expect(s.posts[0]!.group).toEqual(
      group({ pending_from_seq: 1, pending_to_seq: 5, note: "job_failed, queue_idle" }),
    );
  });

  it("posts nothing when the agent has read every wake event by the time the post is due", async () => {
    const s = setup();
    s.arrive("chat", { text: "hi" });
    s.bridge.events(null);
    s.arrive("job_done");
    await s.clock.advance(10_000);
    expect(s.posts).toHaveLength(0);
  });

  it("keeps one post in flight and posts later wake events as their own group after the 2xx", async () => {
    const s = setup();
    let release!: () => void;
    s.holdPosts(new Promise<void>((r) => (release = r)));
    s.arrive("chat", { text: "one" });
    await s.clock.advance(1500);
    expect(s.posts).toHaveLength(1);
    s.arrive("chat", { text: "two" });
    await s.clock.advance(60_000);
    expect(s.posts).toHaveLength(1);
    s.holdPosts(undefined);
    release();
    await s.clock.advance(1500);
    expect(s.posts.map((p) => p.group)).toEqual([
      group({ pending_from_seq: 1, pending_to_seq: 1, note: "one" }),
      group({ pending_from_seq: 1, pending_to_seq: 2, note: "two" }),
    ]);
  });

  it("backs off from 5 s to 300 s on non-2xx, retrying the same range, then moves on after a 2xx", async () => {
    const s = setup([500, 503, new Error("ECONNREFUSED"), 500, 500, 500, 500, 500, 200]);
    s.arrive("chat", { text: "help" });
    await s.clock.advance(1500);
    s.arrive("body_died");
    await s.clock.advance(2_000_000);
    const gaps = s.posts.slice(1).map((p, i) => p.at - s.posts[i]!.at);
    expect(gaps.slice(0, 8)).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    for (const p of s.posts.slice(0, 9)) {
      expect(p.group).toEqual(group({ pending_from_seq: 1, pending_to_seq: 1, note: "help" }));
    }
    // After the 2xx the newer wake event gets its own group.
    expect(s.posts[9]!.group).toEqual(group({ pending_from_seq: 1, pending_to_seq: 2, note: "help" }));
  });

  it("drops a retry whose wake events were read meanwhile", async () => {
    const s = setup([500]);
    s.arrive("chat", { text: "x" });
    await s.clock.advance(1500);
    s.bridge.events(null);
    await s.clock.advance(1_000_000);
    expect(s.posts).toHaveLength(1);
  });

  it("reminds once, 300 s after the last 2xx, while wake events stay unread", async () => {
    const s = setup();
    s.arrive("stopped", { by: "alice" });
    await s.clock.advance(1500);
    await s.clock.advance(299_999);
    expect(s.posts).toHaveLength(1);
    await s.clock.advance(1);
    expect(s.posts).toHaveLength(2);
    expect(s.posts[1]!.group).toEqual(s.posts[0]!.group);
    await s.clock.advance(3_000_000);
    expect(s.posts).toHaveLength(2);
    // A new range earns its own post and its own reminder.
    s.arrive("player_died");
    await s.clock.advance(1500 + 300_000);
    expect(s.posts).toHaveLength(4);
    expect(s.posts[3]!.group.pending_to_seq).toBe(2);
  });

  it("sends no reminder once the agent has read the wake events", async () => {
    const s = setup();
    s.arrive("rocket_launched");
    await s.clock.advance(1500);
    s.bridge.events(null);
    await s.clock.advance(600_000);
    expect(s.posts).toHaveLength(1);
  });

  it("carries reset: true once after a reset, until a post with it gets a 2xx", async () => {
    const s = setup([500]);
    s.bridge.resetPending = true;
    s.arrive("chat", { text: "a" });
    await s.clock.advance(1500 + 5_000);
    expect(s.posts.map((p) => p.group.reset)).toEqual([true, true]);
    s.arrive("chat", { text: "b" });
    await s.clock.advance(1500);
    expect(s.posts[2]!.group.reset).toBe(false);
  });

  it("posts nothing after close", async () => {
    const s = setup();
    s.arrive("chat", { text: "a" });
    s.bell.close();
    await s.clock.advance(10_000);
    expect(s.posts).toHaveLength(0);
  });
});
