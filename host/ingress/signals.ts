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

/** Coalescing limits (docs: 2 s urgent, 15 s normal, 32 held pairs). */
export interface CoalesceLimits {
  urgentGapMs: number;
  normalGapMs: number;
  maxHeld: number;
}
export const DEFAULT_LIMITS: CoalesceLimits = { urgentGapMs: 2_000, normalGapMs: 15_000, maxHeld: 32 };

/** What became of an offered signal. */
export type Offer = "delivered" | "held" | "full";

/** Per-pair throttle: first signal at once, then at most one per gap, bursts merged into the held one. */
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
  const held = new Map<string, { signal: IngressSignal; timer: NodeJS.Timeout; due: number }>();
  const gap = (d: Delivery) => (d === "urgent" ? limits.urgentGapMs : limits.normalGapMs);

  const handOn = (key: string, s: IngressSignal) => {
    last.set(key, now());
    try {
      deliver(s);
    } catch (e) {
      // The post was already answered; a failing app handler must not take the ingress down.
      console.error(`[ingress] onSignal threw for ${key}: ${(e as Error)?.message ?? e}`);
    }
  };
  const schedule = (key: string, s: IngressSignal) => {
    const due = (last.get(key) ?? 0) + gap(s.delivery);
    const timer = setTimeout(
      () => {
        held.delete(key);
        handOn(key, s);
      },
      Math.max(0, due - now()),
    );
    held.set(key, { signal: s, timer, due });
  };
  const prune = () => {
    // Pairs handed on longer ago than the longest gap no longer throttle anything.
    if (last.size < 256) return;
    const horizon = now() - Math.max(limits.urgentGapMs, limits.normalGapMs);
    for (const [k, t] of last) if (t < horizon && !held.has(k)) last.delete(k);
  };

  return {
    offer(s) {
      const key = `${s.source}\u0000${s.event_type}`;
      const h = held.get(key);
      if (h) {
        clearTimeout(h.timer);
        schedule(key, mergeSignals(h.signal, s));
        return "held";
      }
      const prev = last.get(key);
      if (prev === undefined || now() - prev >= gap(s.delivery)) {
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
