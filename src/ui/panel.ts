/**
 * One character's chat panel: it renders the character's session (src/app/session/character-session.ts: the
 * backend, the vocabulary, the tools, the history, the turns) and sends it input. The view (panel-view.ts),
 * the input queue (panel-queue.ts), one reply as it plays (panel-reply.ts) and the voice (panel-voice.ts) are
 * its parts. Its window tools come from createWindowTools (src/app/tools/window-tools.ts) per window kind: the browser build hands rate_relation
 * and address_character; the phone hands none (it declares generate_express alone); the desktop app's windows
 * add browser, and main's body_action and look.
 */
import { CHARACTER_ADDRESSED_EVENT } from "../app/addressing/addressing.ts";
import { bandToward } from "../app/relations/access.ts";
import {
  type CharacterSession,
  createCharacterSession,
  type Incoming,
  type TurnHandlers,
  type TurnResult,
} from "../app/session/character-session.ts";
import { relationsOverBridge } from "../app/tools/relation.ts";
import { createWindowTools, type WindowKind } from "../app/tools/window-tools.ts";
import { SIGNAL_EVENT, SignalEventSchema, signalLabel } from "../app/turn/signal-turn.ts";
import type { AvatarExecutor } from "../protocol/body.ts";
import { CharacterAddressedSchema } from "../protocol/events.ts";
import { type HistoryEntry, historyKey } from "../protocol/history.ts";
import { HISTORY_MAX } from "../protocol/limits.ts";
import { createCharacterBackend } from "./backend.ts";
import type { BridgeClient } from "./bridge-client.ts";
import { h } from "./dom.ts";
import { createPanelEvents, type PanelOn } from "./panel-events.ts";
import { createPanelListen } from "./panel-listen.ts";
import { createTurnQueue } from "./panel-queue.ts";
import { playReply } from "./panel-reply.ts";
import { createPanelView } from "./panel-view.ts";
import { createPanelVoice } from "./panel-voice.ts";
import { mountStage, type StageArea } from "./stage-area.ts";
import type { StoreMirror } from "./store-mirror.ts";
import { switchStates } from "./switches.ts";
import { isVoiceKey, speaks } from "./voice-controls.ts";

export interface PanelOptions {
  bridge: BridgeClient;
  kv: StoreMirror;
  presetId: string;
  /**
   * The window it is created for (window-tools.ts): "browser" for the browser build's main view, "phone",
   * and the desktop app's "main" and "pet" windows (desktop-view.ts), which also declare browser (and main
   * body_action and look).
   */
  kind: WindowKind;
  /** Mount the avatar stage (main's character). */
  stage: boolean;
  /** Run the turns of mods' signals (main's character: one panel per window). */
  signals?: boolean;
  /** main's avatar executor (desktop-view.ts lends the host's over the bridge), read at call time. */
  avatarExecutor?: () => AvatarExecutor | null;
}

/** A mounted panel. */
export interface Panel {
  el: HTMLElement;
  presetId: string;
  /** Sends a message as the user would. */
  send(text: string): void;
  /** Follows the panel's events (panel-events.ts): busy, the reply as it streams, its end, a message sent. */
  on: PanelOn;
  /** The stage area (when the panel mounts the stage), for a view that follows her frames and body. */
  stage: StageArea | null;
  /** The stage's box and her input (form and text area), for a view that lays them out itself. */
  parts: {
    stageBox: HTMLElement;
    form: HTMLFormElement;
    input: HTMLTextAreaElement;
    /** The listening mark on her stage (shown while the microphone is open). */
    listenBadge: HTMLElement;
  };
  /** Push-to-talk from the desktop's global hold key: pressed, or let go (sends what was said). */
  talk(down: boolean): void;
  dispose(): void;
}

/** The session of a page's panel: the backend through the host, the vocabulary and history over the bridge. */
function openPageSession(opts: PanelOptions, playback: () => Promise<boolean>): CharacterSession {
  const { bridge, kv, presetId } = opts;
  return createCharacterSession({
    presetId,
    kind: opts.kind,
    kv,
    backend: (preset, hello) => createCharacterBackend(preset, hello),
    vocabulary: () => bridge.invoke("vocabulary_get", {}).then((r) => r.vocabulary),
    windowTools: (addressing) =>
      createWindowTools({
        kind: opts.kind,
        kv,
        presetId,
        addressing,
        invoke: bridge.invoke,
        // Each change is decided by the host in one transaction (relation_rate), not read-modify-written here.
        relations: relationsOverBridge(bridge.invoke, kv),
        avatarExecutor: opts.avatarExecutor,
      }),
    emitAddressed: (p) => bridge.emit(CHARACTER_ADDRESSED_EVENT, p),
    playback,
    history: {
      read: () => {
        const v = kv.get(historyKey(presetId));
        return Array.isArray(v) ? (v as HistoryEntry[]) : [];
      },
      // Appended by the host in one transaction (history_append), not read from the mirror and written back:
      // another window of this character ending a turn at the same moment keeps its lines too.
      append: (entries) => bridge.invoke("history_append", { presetId, entries }),
    },
  });
}

/** Her input sends what was typed on submit, and Enter (without Shift, not while composing) submits. */
function sendOnSubmit(
  view: { form: HTMLFormElement; input: HTMLTextAreaElement },
  send: (text: string) => void,
): void {
  view.form.addEventListener("submit", (e) => {
    e.preventDefault();
    const t = view.input.value;
    view.input.value = "";
    send(t);
  });
  view.input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      view.form.requestSubmit();
    }
  });
}

/** Creates the panel of one character. */
export function createPanel(opts: PanelOptions): Panel {
  const { bridge, kv, presetId } = opts;
  // The addressed event waits for the reply's voice to play out (the voice is made below, used per turn).
  const session = openPageSession(opts, () => voice.finished());
  const view = createPanelView({ presetId, kind: opts.kind, name: session.name(), stage: opts.stage });
  const stage = opts.stage ? mountStage(view.stageBox, presetId, bridge) : null;
  const events = createPanelEvents();
  const queue = createTurnQueue({
    onBusy: (busy) => {
      view.setBusy(busy, voice.active());
      events.emit("busy", busy);
    },
    onFailure: (e) => view.failure(e),
  });
  const voice = createPanelVoice({ kv, presetId, view, stage, busy: () => queue.busy() });

  // What the log shows, so our own writes (and their echo from the host) do not redraw it.
  let shownSig = "";
  const sig = (list: HistoryEntry[]) => `${list.length}:${list.at(-1)?.at ?? 0}`;
  const showHistory = () => {
    const entries = session.history();
    shownSig = sig(entries);
    view.renderHistory(entries, session.preset(), session.name());
  };
  const refreshHead = () =>
    view.renderHead({
      name: session.name(),
      band: switchStates(kv).relations ? bandToward(kv, presetId) : null,
    });
  refreshHead();
  showHistory();

  /** Plays a turn into its reply and notes the lines it stored, so their echo does not redraw the log. */
  const play = (run: (h: TurnHandlers) => Promise<TurnResult>) =>
    queue.turn(async (signal) => {
      const result = await playReply({ view, stage, voice, emit: events.emit }, signal, run);
      if (result.saved.length) shownSig = sig([...session.history(), ...result.saved].slice(-HISTORY_MAX));
      result.stored.catch((e: unknown) => view.failure(e));
      return result;
    });

  function send(message: string): void {
    const t = message.trim();
    if (!t) return;
    events.emit("sent", t);
    view.bubble("user", t);
    queue.enqueue(async () => {
      await play((h) => session.userTurn(t, h));
    });
  }

  /**
   * A turn that did not start from the user (another character addressed this one, a mod sent a signal):
   * claimed at once, so the first window to hear the event runs it even while it is busy, then queued.
   */
  function incomingTurn(
    claim: Promise<boolean>,
    incoming: Incoming,
    run: (h: TurnHandlers) => Promise<TurnResult>,
  ): void {
    queue.enqueue(async () => {
      if (!(await claim)) return;
      const shownIncoming = view.bubble("incoming", incoming.text, incoming.from);
      const result = await play(run);
      // A stale or capped event runs no turn: nothing to keep.
      if (!result.end) shownIncoming.remove();
    });
  }

  const offAddressed = bridge.on(CHARACTER_ADDRESSED_EVENT, (payload) => {
    const parsed = CharacterAddressedSchema.safeParse(payload);
    if (!parsed.success || parsed.data.to.id !== presetId) return;
    const p = parsed.data;
    const claim = bridge.invoke("addressed_claim", { presetId, turnId: p.turnId }).catch(() => false);
    const incoming = { text: p.text, from: p.from.name };
    incomingTurn(claim, incoming, (h) => session.addressedTurn(payload, incoming, h));
  });

  const offSignal = opts.signals
    ? bridge.on(SIGNAL_EVENT, (payload) => {
        const parsed = SignalEventSchema.safeParse(payload);
        if (!parsed.success) return;
        const s = parsed.data;
        const claim = bridge.invoke("signal_claim", { id: s.id }).catch(() => false);
        const incoming = { text: signalLabel(s), from: "signal" };
        incomingTurn(claim, incoming, (h) => session.signalTurn(s, incoming, h));
      })
    : () => {};

  sendOnSubmit(view, send);
  /** Stop: her turn and her voice (the button, and the user speaking over her). */
  const stopAll = () => {
    queue.stop();
    voice.stop();
  };
  view.stopBtn.addEventListener("click", stopAll);
  const listen = createPanelListen({
    kv,
    presetId,
    kind: opts.kind,
    view,
    // Her voice plays, or her spoken reply is still coming (between two sentences she is still speaking).
    herVoice: () => voice.active() || (queue.busy() && speaks(kv, presetId)),
    stop: stopAll,
    send,
    onState: (state) => events.emit("listening", state),
    note: (message) =>
      view.log.append(h("div", { class: "voice-note", role: "note", "data-testid": "listen-note" }, message)),
  });

  const offs = [
    // Voice turned off or muted: silence at once.
    kv.watch(isVoiceKey, () => {
      if (!speaks(kv, presetId)) voice.stop();
    }),
    kv.watch(historyKey(presetId), () => {
      // Another tab wrote this preset's history (or the host came back): show it when idle.
      if (!queue.busy() && sig(session.history()) !== shownSig) showHistory();
    }),
    kv.watch(
      (k) => k === "yui.presets" || k === "yui.relations" || k === `yui.${presetId}.relations`,
      () => refreshHead(),
    ),
  ];

  return {
    el: view.el,
    presetId,
    send,
    on: events.on,
    stage,
    parts: { stageBox: view.stageBox, form: view.form, input: view.input, listenBadge: listen.stageBadge },
    talk: listen.talk,
    dispose() {
      queue.stop();
      offAddressed();
      offSignal();
      for (const off of offs) off();
      session.close();
      listen.dispose();
      voice.dispose();
      stage?.dispose();
    },
  };
}
