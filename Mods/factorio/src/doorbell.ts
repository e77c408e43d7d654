import type { Clock } from "./clock.ts";

/** The fixed fields of every wake signal, as the spec writes them. */
export const WAKE_SIGNAL = { delivery: "urgent", source: "factorio", event_type: "game.wake" } as const;

/** The body posted to signals_url (docs/mods/factorio.md). */
export type WakeGroup = typeof WAKE_SIGNAL & {
  pending_from_seq: number;
  pending_to_seq: number;
  reset: boolean;
  note: string;
};

/** What the doorbell reads from the bridge when a post is due. */
export type WakeSource = {
  /** The group to post now, with the newest unread wake seq; null when every wake event has been read. */
  current(): { group: WakeGroup; newestWakeSeq: number } | null;
  /** Called after a 2xx: the group (and its reset) reached the client. */
  delivered(group: WakeGroup): void;
};

export type DoorbellTimings = {
  coalesceMs: number;
  /** Non-2xx backoff: first wait and cap (5 s and 300 s by the spec). */
  backoffMinMs: number;
  backoffMaxMs: number;
  /** The one reminder for still-unread wake events after the last 2xx (300 s by the spec). */
  remindMs: number;
};

/** Posts a group and answers the HTTP status; throws when no response came (counted as non-2xx). */
export type PostGroup = (group: WakeGroup) => Promise<number>;

export type DoorbellOutcome = { group: WakeGroup; status: number | null; reminder: boolean; error?: string };

/** Rings the client for urgent game events: coalesces, keeps one post in flight, backs off, reminds once. */
export class Doorbell {
  private dueTimer: unknown;
  private reminderTimer: unknown;
  private inFlight = false;
  private retry: { group: WakeGroup; reminder: boolean } | null = null;
  private backoffMs: number;
  private closed = false;

  constructor(
    private readonly source: WakeSource,
    private readonly post: PostGroup,
    private readonly timings: DoorbellTimings,
    private readonly clock: Clock,
    private readonly onOutcome: (o: DoorbellOutcome) => void = () => {},
  ) {
    this.backoffMs = timings.backoffMinMs;
  }

  /** A wake event entered the cache: post after the coalescing window unless a post is already coming. */
  ring(): void {
    if (this.closed || this.inFlight || this.retry || this.dueTimer !== undefined) return;
    this.dueTimer = this.clock.setTimeout(() => {
      this.dueTimer = undefined;
      void this.fire(false);
    }, this.timings.coalesceMs);
  }

  /** True while a post is in flight or scheduled (coalescing or backing off). */
  get busy(): boolean {
    return this.inFlight || this.retry !== null || this.dueTimer !== undefined;
  }

  /** Stops every timer; no post starts after this. */
  close(): void {
    this.closed = true;
    if (this.dueTimer !== undefined) this.clock.clearTimeout(this.dueTimer);
    if (this.reminderTimer !== undefined) this.clock.clearTimeout(this.reminderTimer);
    this.dueTimer = undefined;
    this.reminderTimer = undefined;
  }

  private async fire(reminder: boolean): Promise<void> {
    if (this.closed) return;
    const now = this.source.current();
    if (!now) {
      // The agent read every wake event before the post was due: nothing to ring for.
      this.retry = null;
      this.backoffMs = this.timings.backoffMinMs;
      return;
    }
    const group = this.retry?.group ?? now.group;
    const isReminder = this.retry ? this.retry.reminder : reminder;
    this.retry = null;
    this.inFlight = true;
    let status: number | null = null;
    let error: string | undefined;
    try {
      status = await this.post(group);
    } catch (err) {
      error = (err as Error).message;
    }
    this.inFlight = false;
    this.onOutcome({ group, status, reminder: isReminder, ...(error ? { error } : {}) });
    if (this.closed) return;
    if (status !== null && status >= 200 && status < 300) {
      this.backoffMs = this.timings.backoffMinMs;
      this.source.delivered(group);
      if (this.reminderTimer !== undefined) this.clock.clearTimeout(this.reminderTimer);
      this.reminderTimer = undefined;
      // One reminder per range: a reminder's own success schedules none.
      if (!isReminder) {
        this.reminderTimer = this.clock.setTimeout(() => {
          this.reminderTimer = undefined;
          if (!this.busy) void this.fire(true);
        }, this.timings.remindMs);
      }
      // Wake events that arrived while this post was out get their own group.
      const after = this.source.current();
      if (after && after.newestWakeSeq > group.pending_to_seq) this.ring();
      return;
    }
    this.retry = { group, reminder: isReminder };
    const wait = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.timings.backoffMaxMs);
    this.dueTimer = this.clock.setTimeout(() => {
      this.dueTimer = undefined;
      void this.fire(isReminder);
    }, wait);
  }
}
