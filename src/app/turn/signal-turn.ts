/**
 * A signal turn: a mod's signal (the factorio doorbell, ...) handed on by the host's ingress becomes a turn of
 * main's character, so the backend agent wakes without the user writing (docs/signals-ingress.md).
 */
import type { SignalEvent } from "../../protocol/events.ts";
import { SILENT_MARK } from "../addressing/addressing.ts";

// The event and its payload are the host–page contract's (src/protocol/events.ts).
export { SIGNAL_EVENT, type SignalEvent, SignalEventSchema } from "../../protocol/events.ts";

/** The client-context lines of a signal turn. */
export function signalTurnContext(s: SignalEvent): string[] {
  const merged = s.count > 1 ? `, ${s.count} posts merged` : "";
  return [
    `signal: ${s.source} ${s.event_type} (${s.delivery}${merged})`,
    `The user did not write this turn: a mod sent the signal in the message. Speak only if it is worth the user's attention; otherwise reply ${SILENT_MARK}.`,
  ];
}

/** The message the backend receives: the signal as JSON (the agent reads its fields, e.g. pending_from_seq). */
export function signalTurnMessage(s: SignalEvent): string {
  const { id: _id, ...signal } = s;
  return JSON.stringify(signal);
}

/** How the signal reads in the transcript's incoming bubble: its source, then its note or its type. */
export function signalLabel(s: SignalEvent): string {
  return `${s.source} · ${s.note ?? s.event_type}`;
}
