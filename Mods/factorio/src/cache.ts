import type { GameEvent } from "./rpc.ts";

export const CACHE_CAPACITY = 5000;

/** The Mod's event cache: events in seq order, the oldest dropped past the capacity. */
export class EventCache {
  // Kept sorted by seq; events only arrive in increasing seq, so appends keep it sorted.
  private events: GameEvent[] = [];

  constructor(readonly capacity = CACHE_CAPACITY) {}

  get size(): number {
    return this.events.length;
  }

  /** The newest cached seq, or undefined when empty. */
  get newestSeq(): number | undefined {
    return this.events.at(-1)?.seq;
  }

  /** Appends events newer than the newest cached one, dropping the oldest past the capacity. */
  add(events: readonly GameEvent[]): void {
    for (const e of events) {
      const newest = this.newestSeq;
      if (newest !== undefined && e.seq <= newest) continue;
      this.events.push(e);
    }
    const over = this.events.length - this.capacity;
    if (over > 0) this.events.splice(0, over);
  }

  /** Drops every event above seq (a rollback). */
  dropAbove(seq: number): void {
    this.events.length = this.indexAfter(seq);
  }

  /** Empties the cache (a new map). */
  clear(): void {
    this.events = [];
  }

  /** A contiguous run of at most `limit` events after `seq` (exclusive); the run stops at a seq gap. */
  page(seq: number, limit: number): { events: GameEvent[]; more: boolean } {
    const start = this.indexAfter(seq);
    const out: GameEvent[] = [];
    let i = start;
    for (; i < this.events.length && out.length < limit; i++) {
      const e = this.events[i]!;
      const prev = out.at(-1);
      if (prev && e.seq !== prev.seq + 1) break;
      out.push(e);
    }
    return { events: out, more: i < this.events.length };
  }

  /** Every cached event after seq (exclusive), oldest first. */
  after(seq: number): GameEvent[] {
    return this.events.slice(this.indexAfter(seq));
  }

  /** Index of the first event with a seq above `seq` (binary search). */
  private indexAfter(seq: number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.events[mid]!.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}
