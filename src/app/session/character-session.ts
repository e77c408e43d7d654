/**
 * One open character's session (docs/architecture.md#the-character-session): it owns the backend built from
 * the preset's settings (rebuilt when they change), the vocabulary it read last, the tools its window declares,
 * the conversation around it (Addressing) and the history, and runs the character's turns: a user turn, an
 * addressed turn from another character, a mod's signal. A window (the page's panel, `yui chat`) renders a
 * session and sends it input; the session never touches a screen.
 *
 * What differs between a page and a Node process is given: how a backend is reached (the host's proxy and push
 * relay, or the backend itself), where the vocabulary comes from, how the history is stored, how an addressed
 * event reaches the other characters.
 */
import type { HelloInfo } from "../../io/chat/push/client.ts";
import type { TranscriptEntry } from "../../io/chat/stream/engine.ts";
import type { EngineEvent, TurnEnd, TurnError } from "../../io/chat/stream/types.ts";
import type { ClientTool } from "../../io/chat/tools/client-tools.ts";
import type { HistoryEntry } from "../../protocol/history.ts";
import {
  Addressing,
  addressedChainMax,
  type CharacterAddressed,
  isSilent,
  type TurnOrigin,
} from "../addressing/addressing.ts";
import type { Preset } from "../presets/preset.ts";
import { getPreset, type KeyValue, openPresets } from "../presets/presets.ts";
import { relationLineFor } from "../relations/access.ts";
import { switchStates } from "../switches.ts";
import type { WindowKind } from "../tools/window-tools.ts";
import { type SignalEvent, signalTurnContext, signalTurnMessage } from "../turn/signal-turn.ts";
import {
  type BackendCaller,
  buildTurnRegistry,
  createTurnSender,
  type SendTurnInput,
  type TurnSender,
} from "../turn/wire-dispatcher.ts";
import { DEFAULT_VOCABULARY, type Vocabulary } from "../vocabulary/vocabulary.ts";

/** What a caller passes with each turn: Stop, and where this turn's events go. */
export interface TurnHandlers {
  signal?: AbortSignal;
  onEvent?: (e: EngineEvent) => void;
}

/** A character's backend caller as a session holds it. */
export interface SessionBackend extends BackendCaller {
  /** Chat Completions' transcript, restored from the history when the backend is built; others ignore it. */
  setTranscript?(entries: TranscriptEntry[]): void;
  close?(): void;
}

/** Where a session keeps its conversation lines. */
export interface SessionHistory {
  read(): HistoryEntry[];
  /** Appends lines (the host does it in one transaction, so two windows ending a turn together keep both). */
  append(entries: HistoryEntry[]): Promise<unknown>;
}

export interface CharacterSessionDeps {
  presetId: string;
  /** The window the session runs in (window-tools.ts decides its tools). */
  kind: WindowKind;
  /** The store (or the page's mirror of it): presets, relations, switches. */
  kv: KeyValue;
  /**
   * Builds the backend caller for the preset's settings; `hello` is the push hello from the session's tools.
   * Called again whenever `backendKey` of the preset changes.
   */
  backend(preset: Preset, hello: () => Promise<HelloInfo>): SessionBackend;
  /** What the backend is rebuilt on; default: the preset's backend settings and persona. */
  backendKey?(preset: Preset): string;
  /** Reads the vocabulary at the start of each turn; a failed read keeps the one read before. */
  vocabulary(): Vocabulary | Promise<Vocabulary>;
  /** The window's tools (built per turn: their enums read the presets open now), over the session's addressing. */
  windowTools(addressing: Addressing): () => ClientTool[] | Promise<ClientTool[]>;
  /** Hands a yui://character-addressed event to the other characters (the bridge, or the CLI's queue). */
  emitAddressed(payload: CharacterAddressed): void;
  /**
   * The playback of the reply that just ended: true once it has played out, false when it was stopped first.
   * Default: nothing plays (`yui chat`), so a reply is played back as it ends.
   */
  playback?(): Promise<boolean>;
  /** Where the conversation is kept; without one the session keeps none (`yui chat`). */
  history?: SessionHistory;
}

/** A turn's result as a window renders it. */
export interface TurnResult {
  /** null when the turn did not run (a stale or capped addressed event). */
  end: TurnEnd | null;
  /** Why it failed, typed (outcome "error"), for the window to put in words. */
  error: TurnError | null;
  /** The lines the turn added to the history. */
  saved: HistoryEntry[];
  /** Settles when the history holds them; rejects when they could not be stored. */
  stored: Promise<unknown>;
}

/** What another character's or a mod's turn shows as its incoming line. */
export interface Incoming {
  text: string;
  from: string;
}

export type CharacterSession = ReturnType<typeof createCharacterSession>;

const defaultBackendKey = (p: Preset) => JSON.stringify([p.backend, p.persona]);

/** Opens the session of one character in one window. */
export function createCharacterSession(deps: CharacterSessionDeps) {
  const { kv, presetId } = deps;
  const preset = () => getPreset(kv, presetId);
  const name = () => preset()?.name ?? presetId;
  const backendKey = deps.backendKey ?? defaultBackendKey;
  let vocabulary: Vocabulary = DEFAULT_VOCABULARY;
  const addressing = new Addressing({
    self: { id: presetId, name: name() },
    chainMax: () => addressedChainMax(kv),
  });
  const windowTools = deps.windowTools(addressing);
  const history = (): HistoryEntry[] => deps.history?.read() ?? [];

  /** The registry this window declares now: generate_express and its window tools. */
  const declaredTools = () => buildTurnRegistry({ vocabulary: () => vocabulary, windowTools });
  const readVocabulary = async () => {
    try {
      vocabulary = await deps.vocabulary();
    } catch {
      /* the last one read stays */
    }
  };

  // A push connection says hello (again after a reconnect) with the vocabulary read now: it may come before
  // the first turn.
  const hello = async (): Promise<HelloInfo> => {
    await readVocabulary();
    return { preset: { id: presetId, name: name() }, window: deps.kind, tools: await declaredTools() };
  };

  // The backend and the turn sender over it, rebuilt together when the preset's backend settings change. A
  // backend that declares its tools per connection (push: hello.tools) gives them to the turn sender, which then
  // builds no registry of its own and describes those in the turn's context.
  let backend: { key: string; caller: SessionBackend; sender: TurnSender } | null = null;
  const current = () => {
    const p = preset();
    if (!p) throw new Error(`the preset ${presetId} no longer exists`);
    const key = backendKey(p);
    if (!backend || backend.key !== key) {
      backend?.caller.close?.();
      const caller = deps.backend(p, hello);
      caller.setTranscript?.(history().map(({ role, content }) => ({ role, content })));
      const sender = createTurnSender({
        caller,
        presetId,
        vocabulary: () => vocabulary,
        windowTools,
        switches: async () => switchStates(kv),
        contextLines: async (t) =>
          t.some((x) => x.switchId === "relations") ? [relationLineFor(kv, presetId, openPresets(kv))] : [],
      });
      backend = { key, caller, sender };
    }
    return backend;
  };

  /** One turn with the characters' conversation around it (docs/relations.md); null when it may not run. */
  const run = (origin: TurnOrigin, text: string, context: string[], h: TurnHandlers) =>
    runAddressedTurn(
      { runTurn: (input) => current().sender.runTurn(input) },
      addressing,
      { emit: (p) => deps.emitAddressed(p), playback: () => deps.playback?.() ?? Promise.resolve(true) },
      { origin, text, context },
      h,
    );

  /** Stores a turn's lines and says what it stored. */
  const keep = (end: TurnEnd | null, entries: HistoryEntry[]): TurnResult => {
    const saved = end ? entries : [];
    const stored = saved.length && deps.history ? deps.history.append(saved) : Promise.resolve();
    return { end, error: end?.outcome === "error" ? (end.failure ?? null) : null, saved, stored };
  };

  return {
    presetId,
    kind: deps.kind,
    addressing,
    preset,
    name,
    history,
    /** The vocabulary read at the start of the last turn. */
    vocabulary: () => vocabulary,
    declaredTools,

    /** The user wrote: a new exchange starts. The user's line is kept even when the turn fails. */
    async userTurn(text: string, h: TurnHandlers = {}): Promise<TurnResult> {
      await readVocabulary();
      const end = (await run({ kind: "user" }, text, [], h)) as TurnEnd;
      const at = Date.now();
      return keep(end, [
        { role: "user", content: text, at },
        ...(end.text ? [{ role: "assistant" as const, content: end.text, at }] : []),
      ]);
    },

    /** Another character addressed this one; `incoming` is the line the window showed for it. */
    async addressedTurn(payload: unknown, incoming: Incoming, h: TurnHandlers = {}): Promise<TurnResult> {
      await readVocabulary();
      // Not for this character, stale, or past the chain cap: no turn.
      const turn = addressing.receive(payload);
      const end = turn
        ? await run({ kind: "addressed", event: turn.event }, turn.message, turn.context, h)
        : null;
      return keepIncoming(end, incoming);
    },

    /** A mod's signal reached this window (validated there, with SignalEventSchema). */
    async signalTurn(s: SignalEvent, incoming: Incoming, h: TurnHandlers = {}): Promise<TurnResult> {
      await readVocabulary();
      const end = await run({ kind: "other" }, signalTurnMessage(s), signalTurnContext(s), h);
      return keepIncoming(end, incoming);
    },

    /** Builds the backend now rather than at the first turn (a push connection opens and says hello). */
    warm(): void {
      current();
    },

    close() {
      backend?.caller.close?.();
      backend = null;
    },
  };

  /** An incoming turn keeps the incoming line and a reply that was not [SILENT]. */
  function keepIncoming(end: TurnEnd | null, incoming: Incoming): TurnResult {
    const at = Date.now();
    return keep(end, [
      { role: "user", content: incoming.text, at, from: incoming.from },
      ...(end?.text && !isSilent(end.text) ? [{ role: "assistant" as const, content: end.text, at }] : []),
    ]);
  }
}

/**
 * Runs one turn with the characters' conversation around it: the turn begins in `addressing` (a turn it refuses
 * does not run: null), and once a spoken reply that addressed someone has played out, the
 * `yui://character-addressed` event goes out (never for a reply stopped before its playback ended).
 */
async function runAddressedTurn(
  sender: { runTurn(input: SendTurnInput): Promise<TurnEnd> },
  addressing: Addressing,
  addressed: { emit(payload: CharacterAddressed): void; playback(): Promise<boolean> },
  turn: { origin: TurnOrigin; text: string; context: string[] },
  h: TurnHandlers,
): Promise<TurnEnd | null> {
  const turnId = globalThis.crypto.randomUUID();
  if (!addressing.beginTurn(turnId, turn.origin)) return null;
  const end = await sender.runTurn({
    text: turn.text,
    turnId,
    context: turn.context,
    origin: turn.origin.kind === "other" ? "signal" : turn.origin.kind,
    signal: h.signal,
    onEvent: (e) => h.onEvent?.(e),
  });
  const ok = end.outcome === "spoken" || end.outcome === "silent";
  const spoken = end.outcome === "spoken" && !isSilent(end.text);
  // Asked at the turn's end, before the window can begin another reply: this reply's playback.
  const played = spoken ? addressed.playback() : null;
  const event = addressing.endTurn(turnId, {
    status: ok ? "ok" : end.outcome === "stopped" ? "stopped" : "error",
    text: end.text,
    spoken,
  });
  if (event) addressed.emit(event);
  void played?.then((completed) => {
    const later = addressing.playbackFinished(turnId, completed);
    if (later) addressed.emit(later);
  });
  return end;
}
