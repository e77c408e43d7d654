import type { EventStore, JSONRPCMessage } from "@modelcontextprotocol/server";

interface Stored {
  id: string;
  streamId: string;
  message: JSONRPCMessage;
}

/** One session's recent SSE events, so a client that reconnects with Last-Event-ID (a dropped SSH tunnel,
 *  a sleeping laptop) receives what it missed. Bounded: the oldest events go first. */
export class MemoryEventStore implements EventStore {
  private events: Stored[] = [];
  private seq = 0;

  constructor(private readonly limit = 1000) {}

  /** Stores one event and returns its id ("<stream>_<n>"). */
  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}_${++this.seq}`;
    this.events.push({ id, streamId, message });
    if (this.events.length > this.limit) this.events.splice(0, this.events.length - this.limit);
    return id;
  }

  /** The stream an event id belongs to; undefined once the event has been evicted (or never existed). */
  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.events.find((e) => e.id === eventId)?.streamId;
  }

  /** Re-sends the events of the same stream stored after lastEventId; returns that stream's id. */
  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const at = this.events.findIndex((e) => e.id === lastEventId);
    if (at < 0) return "";
    const streamId = this.events[at]!.streamId;
    for (const e of this.events.slice(at + 1)) {
      // The transport's priming events are stored as empty objects: an id to resume from, nothing to re-send.
      if (e.streamId === streamId && Object.keys(e.message).length > 0) await send(e.id, e.message);
    }
    return streamId;
  }
}
