import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { MemoryEventStore } from "./event-store.ts";

const note = (n: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  method: "notifications/progress",
  params: { progressToken: 1, progress: n },
});

async function replay(store: MemoryEventStore, after: string) {
  const sent: [string, JSONRPCMessage][] = [];
  const stream = await store.replayEventsAfter(after, {
    send: async (id, m) => {
      sent.push([id, m]);
    },
  });
  return { stream, sent };
}

describe("MemoryEventStore", () => {
  it("replays only the same stream's events after the last one seen, skipping priming events", async () => {
    const store = new MemoryEventStore();
    const prime = await store.storeEvent("a", {} as JSONRPCMessage);
    const a1 = await store.storeEvent("a", note(1));
    await store.storeEvent("b", note(99));
    const a2 = await store.storeEvent("a", note(2));
    const a3 = await store.storeEvent("a", note(3));
    expect(await store.getStreamIdForEventId(a1)).toBe("a");
    expect(await replay(store, prime)).toEqual({
      stream: "a",
      sent: [
        [a1, note(1)],
        [a2, note(2)],
        [a3, note(3)],
      ],
    });
    expect((await replay(store, a2)).sent).toEqual([[a3, note(3)]]);
  });

  it("forgets the oldest events past its limit", async () => {
    const store = new MemoryEventStore(2);
    const first = await store.storeEvent("a", note(1));
    const second = await store.storeEvent("a", note(2));
    await store.storeEvent("a", note(3));
    expect(await store.getStreamIdForEventId(first)).toBeUndefined();
    expect(await store.getStreamIdForEventId(second)).toBe("a");
    expect(await replay(store, "unknown_1")).toEqual({ stream: "", sent: [] });
  });
});
