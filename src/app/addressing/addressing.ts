/**
 * The characters' conversation, as pure logic one window's engine drives (docs/relations.md):
 * address_character records the recipient on the turn; when that turn ends ok, having spoken, and its
 * playback has finished, `yui://character-addressed` goes out; the named window turns it into an addressed
 * turn while the chain stays within rate_limit.addressed_chain_max. A [SILENT] reply ends the exchange and a
 * user message starts a new one (the chain resets). No timers, no I/O: the caller emits and schedules.
 */
import {
  type CharacterAddressed,
  CharacterAddressedSchema,
  type CharacterRef,
} from "../../protocol/events.ts";
import {
  ADDRESSED_CHAIN_MAX_KEY,
  DEFAULT_ADDRESSED_CHAIN_MAX,
  MAX_ADDRESSED_CHAIN,
} from "../../protocol/store-keys.ts";

// The event, its payload and the chain cap's store key are the host–page contract's (src/protocol/).
export {
  CHARACTER_ADDRESSED_EVENT,
  type CharacterAddressed,
  CharacterAddressedSchema,
  type CharacterRef,
} from "../../protocol/events.ts";
export {
  ADDRESSED_CHAIN_MAX_KEY,
  DEFAULT_ADDRESSED_CHAIN_MAX,
  MAX_ADDRESSED_CHAIN,
} from "../../protocol/store-keys.ts";

/** The reply that ends an exchange: the addressed character chose not to answer. */
export const SILENT_MARK = "[SILENT]";

/** Why a turn runs: the user wrote, another character addressed this one, or anything else (a signal...). */
export type TurnOrigin =
  | { kind: "user" }
  | { kind: "addressed"; event: CharacterAddressed }
  | { kind: "other" };

/** How a turn ended, as the engine reports it. */
export interface TurnEnd {
  status: "ok" | "error" | "stopped";
  /** The reply's speech text. */
  text: string;
  /** Whether the reply said anything aloud / on screen (a cue-only or silent reply did not). */
  spoken: boolean;
}

/** What address_character's call did to the turn. */
export type RecordResult = { kind: "ok" } | { kind: "already"; label: string };

/** An addressed turn to run: the event, its client-context lines and the message the backend receives. */
export interface AddressedTurn {
  event: CharacterAddressed;
  context: string[];
  message: string;
}

export interface AddressingOptions {
  /** This window's character. */
  self: CharacterRef;
  /** rate_limit.addressed_chain_max, read whenever it matters (a settings change applies at once). */
  chainMax?: () => number;
  /** New exchange ids (injected in tests). */
  newExchangeId?: () => string;
}

interface TurnState {
  exchange: string;
  /** This turn's place in its exchange: 0 for a turn the user (or anything but a character) started. */
  chain: number;
  recipient?: CharacterRef & { label: string };
  end?: TurnEnd;
  playedBack: boolean;
}

/** Reads rate_limit.addressed_chain_max from a store (pass as `chainMax: () => addressedChainMax(kv)`). */
export function addressedChainMax(kv: { get(key: string): unknown }): number {
  const n = kv.get(ADDRESSED_CHAIN_MAX_KEY);
  return typeof n === "number" && Number.isInteger(n) && n >= 0
    ? Math.min(n, MAX_ADDRESSED_CHAIN)
    : DEFAULT_ADDRESSED_CHAIN_MAX;
}

/** Whether a reply is the [SILENT] mark (trimmed, any case). */
export function isSilent(text: string): boolean {
  return text.trim().toUpperCase() === SILENT_MARK;
}

/** How a character is named to another: a preset named `user` reads `user (character)`. */
export function characterLabel(ref: CharacterRef): string {
  return ref.name === "user" ? "user (character)" : ref.name;
}

/** The client-context lines of an addressed turn (docs/relations.md). */
export function addressedTurnContext(event: CharacterAddressed, chainMax: number): string[] {
  return [
    `addressed by: ${characterLabel(event.from)} (turn ${event.chain} of at most ${chainMax} in this exchange)`,
    `To end the exchange, reply ${SILENT_MARK}.`,
  ];
}

/** The message the addressed character's backend receives: the speaker's label, then what they said. */
export function addressedTurnMessage(event: CharacterAddressed): string {
  return `${characterLabel(event.from)}: ${event.text}`;
}

const KEEP_TURNS = 64;
const KEEP_CLOSED = 256;

/** One window's side of the characters' conversation. */
export class Addressing {
  readonly self: CharacterRef;
  private readonly chainMaxFn: () => number;
  private readonly newExchangeId: () => string;
  private readonly turns = new Map<string, TurnState>();
  private readonly closed = new Set<string>();
  private currentExchange: string | undefined;

  constructor(options: AddressingOptions) {
    this.self = options.self;
    this.chainMaxFn = options.chainMax ?? (() => DEFAULT_ADDRESSED_CHAIN_MAX);
    this.newExchangeId = options.newExchangeId ?? (() => globalThis.crypto.randomUUID());
  }

  /** The chain cap now (a bad setting falls back to the default). */
  chainMax(): number {
    const n = this.chainMaxFn();
    return Number.isInteger(n) && n >= 0 ? Math.min(n, MAX_ADDRESSED_CHAIN) : DEFAULT_ADDRESSED_CHAIN_MAX;
  }

  /**
   * Starts a turn. A user turn ends the exchange under way (its late events are dropped) and starts a new
   * one. Returns false for an addressed turn whose exchange ended or whose chain passed the cap meanwhile:
   * do not run it.
   */
  beginTurn(turnId: string, origin: TurnOrigin): boolean {
    if (origin.kind === "addressed") {
      const { event } = origin;
      if (!this.acceptable(event)) return false;
      this.track(turnId, { exchange: event.exchange, chain: event.chain, playedBack: false });
      this.currentExchange = event.exchange;
      return true;
    }
    if (origin.kind === "user" && this.currentExchange) this.close(this.currentExchange);
    const exchange = this.newExchangeId();
    this.track(turnId, { exchange, chain: 0, playedBack: false });
    if (origin.kind === "user") this.currentExchange = exchange;
    return true;
  }

  /** address_character's call: records the recipient unless the turn already has one (the first stands). */
  record(turnId: string, to: CharacterRef, label = characterLabel(to)): RecordResult {
    let st = this.turns.get(turnId);
    if (!st) {
      // A call on a turn the engine did not announce: treat it as a fresh start so the call still counts.
      this.beginTurn(turnId, { kind: "other" });
      st = this.turns.get(turnId)!;
    }
    if (st.recipient) return { kind: "already", label: st.recipient.label };
    st.recipient = { ...to, label };
    return { kind: "ok" };
  }

  /** The recipient recorded on a turn, if any. */
  recipient(turnId: string): CharacterRef | undefined {
    const r = this.turns.get(turnId)?.recipient;
    return r ? { id: r.id, name: r.name } : undefined;
  }

  /**
   * The engine's turn end. Returns the event to emit when the playback already finished (or there was
   * none to wait for), else null: the event then comes from `playbackFinished`.
   */
  endTurn(turnId: string, end: TurnEnd): CharacterAddressed | null {
    const st = this.turns.get(turnId);
    if (!st) return null;
    st.end = end;
    if (end.status === "ok" && isSilent(end.text)) {
      // The addressed character chose silence: the exchange is over, whatever was recorded.
      this.close(st.exchange);
      this.turns.delete(turnId);
      return null;
    }
    if (end.status !== "ok" || !end.spoken || !st.recipient) {
      this.turns.delete(turnId);
      return null;
    }
    return st.playedBack ? this.emit(turnId, st) : null;
  }

  /**
   * The reply's playback ended; `completed` false when it was interrupted (no event then). Returns the
   * event to emit, or null. Call it for a reply with nothing to play too, right after `endTurn`.
   */
  playbackFinished(turnId: string, completed = true): CharacterAddressed | null {
    const st = this.turns.get(turnId);
    if (!st) return null;
    if (!completed) {
      this.turns.delete(turnId);
      return null;
    }
    st.playedBack = true;
    return st.end ? this.emit(turnId, st) : null;
  }

  /** A `yui://character-addressed` event arrived: the addressed turn to run, or null (not for us, stale, capped, malformed). */
  receive(payload: unknown): AddressedTurn | null {
    const parsed = CharacterAddressedSchema.safeParse(payload);
    if (!parsed.success) return null;
    const event = parsed.data;
    if (event.to.id !== this.self.id || event.from.id === this.self.id) return null;
    if (!this.acceptable(event)) return null;
    return {
      event,
      context: addressedTurnContext(event, this.chainMax()),
      message: addressedTurnMessage(event),
    };
  }

  private acceptable(event: CharacterAddressed): boolean {
    return !this.closed.has(event.exchange) && event.chain <= this.chainMax();
  }

  private emit(turnId: string, st: TurnState): CharacterAddressed | null {
    this.turns.delete(turnId);
    const chain = st.chain + 1;
    if (!st.recipient || !st.end || this.closed.has(st.exchange) || chain > this.chainMax()) return null;
    return {
      exchange: st.exchange,
      chain,
      from: { ...this.self },
      to: { id: st.recipient.id, name: st.recipient.name },
      text: st.end.text,
      turnId,
    };
  }

  private track(turnId: string, st: TurnState): void {
    this.turns.set(turnId, st);
    if (this.turns.size > KEEP_TURNS) this.turns.delete(this.turns.keys().next().value!);
  }

  private close(exchange: string): void {
    this.closed.add(exchange);
    if (this.closed.size > KEEP_CLOSED) this.closed.delete(this.closed.values().next().value!);
  }
}
