/**
 * Signals: what `POST /signals` accepts (validation naming the field) and how bursts are coalesced per
 * source + event_type before they reach the app (docs/signals-ingress.md "Signals").
 */
import { z } from "zod";
import { INGRESS_ERRORS } from "./messages.ts";

/** How soon a signal wants the app's attention. */
export const DELIVERIES = ["urgent", "normal"] as const;
export type Delivery = (typeof DELIVERIES)[number];

/** A signal as the app receives it through onSignal. */
export interface IngressSignal {
  source: string;
  event_type: string;
  delivery: Delivery;
  note?: string;
  /** How many posts this one stands for (1 unless merged). */
  count: number;
  /** When the newest merged post arrived (ISO time). */
  received_at: string;
  /** The posted JSON object (merged: the newest, with `true` fields of the older ones kept). */
  body: Record<string, unknown>;
}

const NAME = z.string().regex(/^[a-z0-9][a-z0-9_.-]{0,63}$/);
const NAME_RULE = "1 to 64 characters of a-z 0-9 _ . -, starting with a letter or digit";
export const MAX_NOTE = 4000;

// One row per documented field: its schema, whether it is required, and the words a 400 uses.
const FIELDS: ReadonlyArray<{ name: string; schema: z.ZodType; required: boolean; rule: string }> = [
  { name: "source", schema: NAME, required: true, rule: NAME_RULE },
  { name: "event_type", schema: NAME, required: true, rule: NAME_RULE },
  { name: "delivery", schema: z.enum(DELIVERIES), required: false, rule: `one of ${DELIVERIES.join(", ")}` },
  {
    name: "note",
    schema: z.string().max(MAX_NOTE),
    required: false,
    rule: `a string of at most ${MAX_NOTE} characters`,
  },
];

/** Checks a parsed body; answers the signal or the 400 message naming the first field at fault. */
export function parseSignal(body: unknown, receivedAt: Date): IngressSignal | string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return INGRESS_ERRORS.notObject;
  const obj = body as Record<string, unknown>;
  for (const f of FIELDS) {
    const v = obj[f.name];
    if (v === undefined) {
      if (f.required) return INGRESS_ERRORS.missingField(f.name);
      continue;
    }
    if (!f.schema.safeParse(v).success) return INGRESS_ERRORS.invalidField(f.name, f.rule);
  }
  return {
    source: obj.source as string,
    event_type: obj.event_type as string,
    delivery: (obj.delivery as Delivery | undefined) ?? "normal",
    ...(typeof obj.note === "string" ? { note: obj.note } : {}),
    count: 1,
    received_at: receivedAt.toISOString(),
    body: obj,
  };
}

/** Merges a newer signal into a held one: the newest wins, `true` fields stay true, urgent wins. */
export function mergeSignals(older: IngressSignal, newer: IngressSignal): IngressSignal {
  const body = { ...newer.body };
  for (const [k, v] of Object.entries(older.body)) if (v === true) body[k] = true;
  const delivery: Delivery = older.delivery === "urgent" || newer.delivery === "urgent" ? "urgent" : "normal";
  if (body.delivery !== undefined) body.delivery = delivery;
  return { ...newer, delivery, count: older.count + newer.count, body };
}

/** Coalescing limits (docs: 2 s urgent, 15 s normal, 32 held pairs, 30 hand-ons a minute in all). */
export interface CoalesceLimits {
  urgentGapMs: number;
  normalGapMs: number;
  maxHeld: number;
  /** Signals handed on per rolling minute, all pairs together; beyond it new ones are held too. */
  maxPerMinute: number;
}
export const DEFAULT_LIMITS: CoalesceLimits = {
  urgentGapMs: 2_000,
  normalGapMs: 15_000,
  maxHeld: 32,
  maxPerMinute: 30,
};
const MINUTE = 60_000;

/** What became of an offered signal. */
export type Offer = "delivered" | "held" | "full";

/** Per-pair throttle (first at once, then one per gap, bursts merged) under a per-minute budget for all pairs. */
export interface Coalescer {
  offer(s: IngressSignal): Offer;
  /** Drops what is held (the ingress is closing). */
  close(): void;
}

/** Creates a coalescer handing signals to `deliver` (whose throws are reported, never raised). */
export function createCoalescer(
  deliver: (s: IngressSignal) => void,
  limits: CoalesceLimits = DEFAULT_LIMITS,
  now: () => number = Date.now,
): Coalescer {
  const last = new Map<string, number>();
  const held = new Map<string, { signal: IngressSignal; timer: NodeJS.Timeout }>();
  const recent: number[] = []; // hand-on times within the last minute, oldest first
  const gap = (d: Delivery) => (d === "urgent" ? limits.urgentGapMs : limits.normalGapMs);

  // The earliest time a pair may hand on: its own gap, and a free slot in the minute's budget.
  const dueOf = (key: string, d: Delivery) => {
    const t = now();
    while (recent.length > 0 && recent[0]! <= t - MINUTE) recent.shift();
    const pairDue = (last.get(key) ?? Number.NEGATIVE_INFINITY) + gap(d);
    const budgetDue =
      recent.length < limits.maxPerMinute ? t : recent[recent.length - limits.maxPerMinute]! + MINUTE;
    return Math.max(pairDue, budgetDue);
  };
  const handOn = (key: string, s: IngressSignal) => {
    const t = now();
    last.set(key, t);
    recent.push(t);
    try {
      deliver(s);
    } catch (e) {
      // The post was already answered; a failing app handler must not take the ingress down.
      console.error(`[ingress] onSignal threw for ${key}: ${(e as Error)?.message ?? e}`);
    }
  };
  const schedule = (key: string, s: IngressSignal) => {
    const timer = setTimeout(
      () => {
        // Other pairs may have used the minute's budget meanwhile: wait for the next free slot.
        if (dueOf(key, s.delivery) > now()) return schedule(key, s);
        held.delete(key);
        handOn(key, s);
      },
      Math.max(0, dueOf(key, s.delivery) - now()),
    );
    held.set(key, { signal: s, timer });
  };
  const prune = () => {
    // Pairs handed on longer ago than the longest gap no longer throttle anything.
    if (last.size < 256) return;
    const horizon = now() - Math.max(limits.urgentGapMs, limits.normalGapMs);
    for (const [k, t] of last) if (t < horizon && !held.has(k)) last.delete(k);
  };

  return {
    offer(s) {
      const key = `${s.source}/${s.event_type}`; // neither name may hold a /
      const h = held.get(key);
      if (h) {
        clearTimeout(h.timer);
        schedule(key, mergeSignals(h.signal, s));
        return "held";
      }
      if (dueOf(key, s.delivery) <= now()) {
        handOn(key, s);
        prune();
        return "delivered";
      }
      if (held.size >= limits.maxHeld) return "full";
      schedule(key, s);
      return "held";
    },
    close() {
      for (const h of held.values()) clearTimeout(h.timer);
      held.clear();
    },
  };
}
