import { randomBytes } from "node:crypto";
import { EventCache } from "./cache.ts";
import { WAKE_SIGNAL, type WakeGroup, type WakeSource } from "./doorbell.ts";
import { TOOL_MESSAGES } from "./messages.ts";
import type { OutcomeLine, OutcomeSink } from "./outcome-log.ts";
import { RconError } from "./rcon/client.ts";
import {
  decodeReply,
  EventsPageSchema,
  encodeRequest,
  type GameEvent,
  NotGameModError,
  type Reply,
  type Status,
  StatusSchema,
  WRITE_OPS,
} from "./rpc.ts";

/** The spec's page size, both for polling the game and for factorio_events. */
export const PAGE_LIMIT = 200;

/** A tool call that failed in a way the agent should read: its message is the tool error text. */
export class ToolFailure extends Error {
  override name = "ToolFailure";
}

/** What the bridge needs from the RCON side: one command in, one reply text out. */
export type Exec = { exec(command: string, patient?: boolean): Promise<string> };

export type BridgeOptions = {
  rcon: Exec;
  wakeKinds: ReadonlySet<string>;
  log: OutcomeSink;
  /** Called when a wake event enters the cache (the doorbell's ring). */
  ring?: () => void;
  cacheCapacity?: number;
  /** Prefix of write ids; random per process so two Mod runs never reuse an id. */
  idPrefix?: string;
};

type ResetReason = "rollback" | "map_change" | "stale_session";

/**
 * The Mod's view of the game: map id, the poll cursor (newest seq fetched) and the unread cursor (newest
 * seq the agent has read), the event cache, and the recovery rules of the spec.
 */
export class Bridge implements WakeSource {
  mapId: string | null = null;
  pollSeq = 0;
  readSeq = 0;
  resetPending = false;
  readonly cache: EventCache;
  private recoveryChain: Promise<unknown> = Promise.resolve();
  private counter = 0;
  private readonly idPrefix: string;

  constructor(private readonly opts: BridgeOptions) {
    this.cache = new EventCache(opts.cacheCapacity);
    this.idPrefix = opts.idPrefix ?? randomBytes(4).toString("hex");
  }

  // ---- polling ---------------------------------------------------------------------------------

  /** Polls events_since until a page comes back short; returns how many events entered the cache. */
  async pollOnce(): Promise<number> {
    // The poller is patient: while RCON is down it waits out the reconnect backoff instead of hammering.
    await this.ensureMap(true);
    let accepted = 0;
    for (;;) {
      const session = this.mapId!;
      const from = this.pollSeq;
      const reply = await this.request(
        "events_since",
        { seq: from, limit: PAGE_LIMIT },
        undefined,
        session,
        true,
      );
      // A tool's recovery may have adopted a new map while this page was out: its cursors rule.
      if (this.mapId !== session) return accepted;
      if (!reply.ok) {
        const e = reply.error;
        if (e.code === "stale_session") {
          await this.recover("stale_session", true);
          return accepted;
        }
        if (e.code === "history_gap" && e.oldest_seq !== undefined) {
          const to = e.oldest_seq - 1;
          if (to === from)
            throw new NotGameModError(`history_gap at seq ${from} that does not move the cursor`);
          this.pollSeq = to;
          this.log([{ type: "history_gap", map_id: session, from_seq: from, oldest_seq: e.oldest_seq }]);
          continue;
        }
        throw new ToolFailure(TOOL_MESSAGES.gameError(e.code, e.message, e.field));
      }
      const parsed = EventsPageSchema.safeParse(reply.result);
      if (!parsed.success) throw new NotGameModError(TOOL_MESSAGES.notGameMod);
      const page = parsed.data;
      if (page.map_id !== session || reply.map_id !== session) {
        await this.recover("map_change", true);
        return accepted;
      }
      if (page.head_seq < this.pollSeq) {
        await this.rollback(page.head_seq);
        return accepted;
      }
      accepted += this.accept(page.events);
      if (page.events.length < PAGE_LIMIT) return accepted;
      // A full page that moved nothing would loop forever: that game is not following the protocol.
      if (this.pollSeq <= from)
        throw new NotGameModError(`events_since{seq: ${from}} did not move past ${from}`);
    }
  }

  private accept(events: readonly GameEvent[]): number {
    const from = this.pollSeq;
    const newest = this.cache.newestSeq ?? from;
    const sorted = [...events].sort((a, b) => a.seq - b.seq);
    // Seqs already cached (a cursor sent back by history_gap) still move the poll cursor on.
    const last = sorted.at(-1);
    if (last && last.seq > from) this.pollSeq = last.seq;
    const fresh = sorted.filter((e) => e.seq > from && e.seq > newest);
    if (fresh.length === 0) return 0;
    this.cache.add(fresh);
    this.log(fresh.map((event) => ({ type: "event", map_id: this.mapId, event })));
    if (fresh.some((e) => this.opts.wakeKinds.has(e.kind))) this.opts.ring?.();
    return fresh.length;
  }

  // ---- recovery --------------------------------------------------------------------------------

  /** Adopts the game's map when it differs from ours (first contact, map change, stale session). */
  recover(reason: ResetReason | "start", patient = false): Promise<void> {
    return this.serialized(async () => this.adopt(await this.fetchStatus(patient), reason));
  }

  private adopt(status: Status, reason: ResetReason | "start"): void {
    // The first recovery of a map change adopts it; a later one finds nothing to do.
    if (status.map_id === this.mapId) return;
    const previous = this.mapId;
    this.mapId = status.map_id;
    this.pollSeq = status.seq;
    this.readSeq = status.seq;
    this.cache.clear();
    if (previous === null) {
      this.log([
        { type: "session_start", map_id: status.map_id, seq: status.seq, queue_length: queueLength(status) },
      ]);
      return;
    }
    this.resetPending = true;
    this.log([
      {
        type: "session_reset",
        reason: reason === "start" ? "map_change" : reason,
        map_id: status.map_id,
        previous_map_id: previous,
        seq: status.seq,
        queue_length: queueLength(status),
      },
    ]);
  }

  private rollback(head: number): Promise<void> {
    return this.serialized(async () => {
      const status = await this.fetchStatus(true);
      if (status.map_id !== this.mapId) return this.adopt(status, "map_change");
      if (head >= this.pollSeq) return; // another recovery already rewound
      this.pollSeq = head;
      this.readSeq = Math.min(this.readSeq, head);
      this.cache.dropAbove(head);
      this.resetPending = true;
      this.log([
        {
          type: "session_reset",
          reason: "rollback",
          map_id: status.map_id,
          previous_map_id: status.map_id,
          seq: head,
          queue_length: queueLength(status),
        },
      ]);
    });
  }

  private serialized(fn: () => Promise<void>): Promise<void> {
    const run = this.recoveryChain.then(fn);
    this.recoveryChain = run.catch(() => undefined);
    return run;
  }

  private async ensureMap(patient = false): Promise<void> {
    if (this.mapId === null) await this.recover("start", patient);
  }

  private async fetchStatus(patient = false): Promise<Status> {
    const reply = await this.request("status", {}, undefined, undefined, patient);
    if (!reply.ok) throw new ToolFailure(TOOL_MESSAGES.gameError(reply.error.code, reply.error.message));
    const parsed = StatusSchema.safeParse(reply.result);
    if (!parsed.success) throw new NotGameModError(TOOL_MESSAGES.notGameMod);
    return parsed.data;
  }

  // ---- tool calls ------------------------------------------------------------------------------

  /** factorio_status: the game's status; a map id we do not hold starts the map-change recovery. */
  async status(): Promise<Record<string, unknown>> {
    await this.ensureMap();
    const status = await this.fetchStatus();
    if (status.map_id !== this.mapId) await this.recover("map_change");
    return status;
  }

  /** Runs one op for a tool; answers its result or throws ToolFailure with the tool error text. */
  async call(op: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    await this.ensureMap();
    const write = WRITE_OPS.has(op);
    const id = write ? `${this.idPrefix}-${++this.counter}` : undefined;
    let session = this.mapId!;
    let reply = await this.send(op, args, id, session);
    if (!reply.ok && reply.error.code === "stale_session") {
      await this.recover("stale_session");
      // A stale write never ran; it was meant for the old map, so the agent decides again.
      if (write) throw new ToolFailure(TOOL_MESSAGES.mapChanged);
      session = this.mapId!;
      reply = await this.send(op, args, id, session);
    }
    if (reply.ok) return reply.result;
    const e = reply.error;
    if (e.code === "stale_session") throw new ToolFailure(TOOL_MESSAGES.mapChanged);
    if (e.code === "id_conflict") throw new ToolFailure(TOOL_MESSAGES.idConflict(id ?? e.id ?? "?"));
    throw new ToolFailure(TOOL_MESSAGES.gameError(e.code, e.message, e.field));
  }

  /** Sends one request; a lost reply is re-sent once, under the same id, after status confirms the map. */
  private async send(op: string, args: Record<string, unknown>, id: string | undefined, session: string) {
    try {
      return await this.request(op, args, id, session);
    } catch (err) {
      if (!(err instanceof RconError) || err.kind !== "lost") throw asToolFailure(err);
    }
    let status: Status;
    try {
      status = await this.fetchStatus();
    } catch (err) {
      throw new ToolFailure(TOOL_MESSAGES.lostUnconfirmed((err as Error).message));
    }
    if (status.map_id !== session) {
      await this.recover("map_change");
      throw new ToolFailure(TOOL_MESSAGES.lostAndMapChanged);
    }
    try {
      return await this.request(op, args, id, session);
    } catch (err) {
      if (err instanceof RconError && err.kind === "lost") throw new ToolFailure(TOOL_MESSAGES.lostTwice);
      throw asToolFailure(err);
    }
  }

  private async request(
    op: string,
    args: Record<string, unknown>,
    id: string | undefined,
    session: string | undefined,
    patient = false,
  ): Promise<Reply> {
    return decodeReply(await this.opts.rcon.exec(encodeRequest(op, args, id, session), patient));
  }

  /** factorio_events: a contiguous cached page after since_seq (clamped to the unread cursor). */
  events(sinceSeq: number | null | undefined, limit = PAGE_LIMIT) {
    const start = sinceSeq == null ? this.readSeq : Math.min(sinceSeq, this.readSeq);
    const page = this.cache.page(start, Math.max(1, Math.min(limit, PAGE_LIMIT)));
    const next = page.events.at(-1)?.seq ?? start;
    // Re-reading never moves the unread cursor back.
    this.readSeq = Math.max(this.readSeq, next);
    return { events: page.events, next_seq: next, more: page.more };
  }

  // ---- the doorbell's view ---------------------------------------------------------------------

  /** The wake group to post now, or null when the agent has read every wake event. */
  current(): { group: WakeGroup; newestWakeSeq: number } | null {
    const unread = this.cache.after(this.readSeq);
    const wake = unread.filter((e) => this.opts.wakeKinds.has(e.kind));
    if (wake.length === 0) return null;
    const chat = unread.findLast((e) => e.kind === "chat" && typeof e.text === "string");
    const kinds = [...new Set(wake.map((e) => e.kind))];
    return {
      group: {
        ...WAKE_SIGNAL,
        pending_from_seq: unread[0]!.seq,
        pending_to_seq: this.cache.newestSeq!,
        reset: this.resetPending,
        note: chat ? (chat.text as string) : kinds.join(", "),
      },
      newestWakeSeq: wake.at(-1)!.seq,
    };
  }

  /** A group reached the client: its reset has been told. */
  delivered(group: WakeGroup): void {
    if (group.reset) this.resetPending = false;
  }

  private log(lines: OutcomeLine[]): void {
    this.opts.log.write(lines);
  }
}

function queueLength(status: Status): number | null {
  return status.queue?.length ?? null;
}

function asToolFailure(err: unknown): ToolFailure {
  if (err instanceof ToolFailure) return err;
  return new ToolFailure((err as Error).message);
}
