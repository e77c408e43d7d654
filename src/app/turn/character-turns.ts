/**
 * One character's turns with the characters' conversation around them: a user turn, an addressed turn
 * from another character, or a signal turn (a mod's signal, main's character only); at the end of a spoken reply that addressed someone, and after its playback, the
 * `yui://character-addressed` event goes out (docs/relations.md).
 */
import type { EngineEvent, TurnEnd } from "../../io/chat/stream/types.ts";
import {
  type Addressing,
  type CharacterAddressed,
  isSilent,
  type TurnOrigin,
} from "../addressing/addressing.ts";
import { type SignalEvent, signalTurnContext, signalTurnMessage } from "./signal-turn.ts";
import type { DispatchInput } from "./wire-dispatcher.ts";

export interface CharacterTurnsDeps {
  dispatcher: { runTurn(input: DispatchInput): Promise<TurnEnd> };
  addressing: Addressing;
  /** Emits the yui://character-addressed event (the bridge in the app, a direct hand-over in the CLI). */
  emitAddressed(payload: CharacterAddressed): void;
  /** Plays the reply and resolves true when the playback completed; default: nothing to play. */
  playback?(end: TurnEnd): Promise<boolean>;
  /** Sees every turn's events (a turn's own handler sees its own). */
  onEvent?(e: EngineEvent, turnId: string): void;
  newTurnId?(): string;
}

/** What a caller passes with each turn: Stop, and where this turn's events go. */
export interface TurnHandlers {
  signal?: AbortSignal;
  onEvent?: (e: EngineEvent) => void;
}

/** Creates the turn runner of one character window. */
export function createCharacterTurns(deps: CharacterTurnsDeps) {
  const newTurnId = deps.newTurnId ?? (() => globalThis.crypto.randomUUID());

  async function run(
    origin: TurnOrigin,
    text: string,
    context: string[],
    h: TurnHandlers,
  ): Promise<TurnEnd | null> {
    const turnId = newTurnId();
    if (!deps.addressing.beginTurn(turnId, origin)) return null;
    const end = await deps.dispatcher.runTurn({
      text,
      turnId,
      context,
      origin: origin.kind === "other" ? "signal" : origin.kind,
      signal: h.signal,
      onEvent: (e) => {
        h.onEvent?.(e);
        deps.onEvent?.(e, turnId);
      },
    });
    const ok = end.outcome === "spoken" || end.outcome === "silent";
    const spoken = end.outcome === "spoken" && !isSilent(end.text);
    let event = deps.addressing.endTurn(turnId, {
      status: ok ? "ok" : end.outcome === "stopped" ? "stopped" : "error",
      text: end.text,
      spoken,
    });
    if (!event) {
      const completed = spoken && deps.playback ? await deps.playback(end) : true;
      event = deps.addressing.playbackFinished(turnId, completed);
    }
    if (event) deps.emitAddressed(event);
    return end;
  }

  return {
    /** The user wrote: a new exchange starts. */
    userTurn: (text: string, h: TurnHandlers = {}) => run({ kind: "user" }, text, [], h) as Promise<TurnEnd>,
    /** Another character addressed this one: runs the addressed turn, or returns null when it is not for us or stale. */
    async addressedTurn(payload: unknown, h: TurnHandlers = {}): Promise<TurnEnd | null> {
      const turn = deps.addressing.receive(payload);
      if (!turn) return null;
      return run({ kind: "addressed", event: turn.event }, turn.message, turn.context, h);
    },
    /** A mod's signal reached this window (validated there, with SignalEventSchema): runs the signal turn. */
    signalTurn: (s: SignalEvent, h: TurnHandlers = {}) =>
      run({ kind: "other" }, signalTurnMessage(s), signalTurnContext(s), h) as Promise<TurnEnd>,
  };
}
