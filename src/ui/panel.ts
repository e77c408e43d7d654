/**
 * One character's chat panel: its own backend, engine and transcript, the streamed reply as it arrives, the
 * backend's tool status, errors in plain words, stop; addressed turns from other characters; the history
 * saved per preset in the store. Its window tools come from panel-tools.ts per window kind: the browser build
 * hands rate_relation and address_character; the phone hands none (it declares generate_express alone); the
 * desktop app's windows add browser, and main's body_action and look.
 */

import {
  Addressing,
  addressedChainMax,
  CHARACTER_ADDRESSED_EVENT,
  isSilent,
} from "../app/addressing/addressing.ts";
import { getPreset, openPresets } from "../app/presets/presets.ts";
import { bandToward, relationLineFor } from "../app/relations/access.ts";
import type { WindowKind } from "../app/tools/pet-window-tools.ts";
import { createCharacterTurns } from "../app/turn/character-turns.ts";
import { SIGNAL_EVENT, SignalEventSchema, signalLabel } from "../app/turn/signal-turn.ts";
import { buildTurnRegistry, createWireDispatcher } from "../app/turn/wire-dispatcher.ts";
import { DEFAULT_VOCABULARY, type Vocabulary } from "../app/vocabulary/vocabulary.ts";
import type { Cue } from "../avatar/cues.ts";
import type { EngineEvent, TurnEnd } from "../io/chat/stream/types.ts";
import type { AvatarExecutor } from "../protocol/body.ts";
import { type HistoryEntry, historyKey } from "../protocol/history.ts";
import { HISTORY_MAX } from "../protocol/limits.ts";
import type { Segment } from "../voice/segmenter.ts";
import { createSpeech, type Speech } from "../voice/speech.ts";
import { type CharacterBackend, createCharacterBackend } from "./backend.ts";
import type { BridgeClient } from "./bridge-client.ts";
import { h, replace } from "./dom.ts";
import { plainError } from "./errors.ts";
import { createPanelTools } from "./panel-tools.ts";
import { mountStage, type StageHandle } from "./stage-area.ts";
import type { StoreMirror } from "./store-mirror.ts";
import { switchStates } from "./switches.ts";
import { isVoiceKey, speaks } from "./voice-controls.ts";

export interface PanelOptions {
  bridge: BridgeClient;
  kv: StoreMirror;
  presetId: string;
  /**
   * The window it is created for (pet-window-tools.ts): "browser" for the browser build's main view, "phone",
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
  dispose(): void;
}

/** Creates the panel of one character. */
export function createPanel(opts: PanelOptions): Panel {
  const { bridge, kv, presetId } = opts;
  const preset = () => getPreset(kv, presetId);
  const name = () => preset()?.name ?? presetId;
  let vocabulary: Vocabulary = DEFAULT_VOCABULARY;
  const addressing = new Addressing({
    self: { id: presetId, name: name() },
    chainMax: () => addressedChainMax(kv),
  });
  const invoke = (c: string, a: unknown, o?: { signal?: AbortSignal }) => bridge.invoke(c, a, o);
  const tools = createPanelTools({
    kind: opts.kind,
    kv,
    presetId,
    addressing,
    invoke,
    avatarExecutor: opts.avatarExecutor,
  });

  let backend: CharacterBackend | null = null;
  const ensureBackend = (): CharacterBackend => {
    const p = preset();
    if (!p) throw new Error(`the preset ${presetId} no longer exists`);
    const next = JSON.stringify([p.backend, p.persona]);
    if (!backend || backend.key !== next) {
      backend?.close();
      backend = createCharacterBackend(p, async () => ({
        preset: { id: presetId, name: name() },
        window: opts.kind,
        tools: await buildTurnRegistry({ vocabulary: () => vocabulary, windowTools: tools }),
      }));
      backend.setTranscript(history().map(({ role, content }) => ({ role, content })));
    }
    return backend;
  };

  const dispatcher = createWireDispatcher({
    caller: { runTurn: (i) => ensureBackend().runTurn(i) },
    presetId,
    vocabulary: () => vocabulary,
    windowTools: tools,
    switches: async () => switchStates(kv),
    contextLines: async (t) =>
      t.some((x) => x.switchId === "relations") ? [relationLineFor(kv, presetId, openPresets(kv))] : [],
  });

  // ---- view ----
  const status = h("span", { class: "status", "data-testid": "status" });
  const band = h("span", { class: "band", "data-testid": "band" });
  const log = h("div", { class: "log", "data-testid": "log", role: "log", "aria-live": "polite" });
  const input = h("textarea", {
    class: "input",
    rows: 1,
    placeholder: `Talk to ${name()}…`,
    "aria-label": `Message to ${name()}`,
    "data-testid": "input",
  });
  const sendBtn = h("button", { class: "send", type: "submit", "data-testid": "send" }, "Send");
  const stopBtn = h("button", { class: "stop", type: "button", "data-testid": "stop", hidden: true }, "Stop");
  const form = h("form", { class: "composer" }, input, stopBtn, sendBtn);
  const stageBox = h("div", { class: "stage", "data-testid": "stage" });
  const title = h("h2", { class: "name" }, name());
  const el = h(
    "section",
    { class: `panel panel-${opts.kind}`, "data-preset": presetId, "data-testid": `panel-${presetId}` },
    h(
      "header",
      { class: "panel-head" },
      h("div", { class: "avatar-dot" }, name().slice(0, 1)),
      title,
      band,
      status,
    ),
    opts.stage ? stageBox : null,
    log,
    form,
  );
  let stage: StageHandle | null = null;
  if (opts.stage) stage = mountStage(stageBox, presetId);

  // ---- voice (docs/voice.md): the reply spoken as it streams, cues at their sentence, the mouth moving ----
  let speech: Speech | null = null;
  /** The sentence being spoken, marked in its reply by `repaint`. */
  let speakingSeg: Segment | null = null;
  let repaint: (() => void) | null = null;
  const voice = (): Speech | null => {
    if (!speaks(kv, presetId)) return null;
    speech ??= createSpeech({
      presetId,
      onReveal: (p) => stage?.reveal(p),
      onMouth: (w) => stage?.mouth(w),
      onSpeaking: (seg) => {
        speakingSeg = seg;
        repaint?.();
        el.classList.toggle("speaking", !!seg);
        stopBtn.hidden = !(current || seg);
      },
      onSkip: (seg, message) => {
        const said = seg.text.length > 60 ? `${seg.text.slice(0, 60)}…` : seg.text;
        log.append(
          h(
            "div",
            { class: "voice-note", role: "note", "data-testid": "voice-note" },
            `Not spoken: “${said}” (${message})`,
          ),
        );
      },
    });
    return speech;
  };

  const history = (): HistoryEntry[] => {
    const v = kv.get(historyKey(presetId));
    return Array.isArray(v) ? (v as HistoryEntry[]) : [];
  };
  // What the log shows, so our own writes (and their echo from the host) do not redraw it.
  let shownSig = "";
  const sig = (list: HistoryEntry[]) => `${list.length}:${list.at(-1)?.at ?? 0}`;
  const saveHistory = (...add: HistoryEntry[]) => {
    shownSig = sig([...history(), ...add].slice(-HISTORY_MAX));
    // Appended by the host in one transaction (history_append), not read from the mirror and written back:
    // another window of this character ending a turn at the same moment keeps its lines too.
    bridge.invoke("history_append", { presetId, entries: add }).catch((e: unknown) => shown(e));
  };

  function bubble(role: "user" | "assistant" | "incoming", text: string, from?: string): HTMLElement {
    log.querySelector(".empty")?.remove();
    const body = h("div", { class: "text" }, text);
    const b = h(
      "div",
      { class: `msg ${role}`, "data-role": role },
      from ? h("div", { class: "from" }, from) : null,
      body,
    );
    log.append(b);
    log.scrollTop = log.scrollHeight;
    return b;
  }
  function renderHistory(): void {
    replace(log);
    const entries = history();
    shownSig = sig(entries);
    if (!entries.length) {
      // A first run: say where the words will go, and where to change it.
      const b = preset()?.backend;
      const where = b?.transport === "push" ? b.push_url : b?.base_url;
      log.append(
        h(
          "div",
          { class: "empty" },
          h("p", {}, `Say hello to ${name()}.`),
          h(
            "small",
            {},
            `${name()} talks through ${where ?? "no backend yet"}${b?.model ? ` (${b.model})` : ""}. `,
            h("a", { href: "?view=settings" }, "Change it in Settings"),
          ),
        ),
      );
    }
    for (const e of entries) bubble(e.from ? "incoming" : e.role, e.content, e.from);
  }
  const refreshHead = () => {
    title.textContent = name();
    const on = switchStates(kv).relations;
    band.textContent = on ? bandToward(kv, presetId) : "";
    band.className = `band band-${on ? bandToward(kv, presetId) : "off"}`;
    band.title = on ? `${name()} feels ${bandToward(kv, presetId)} toward you` : "";
  };
  refreshHead();
  renderHistory();

  // ---- turns ----
  let queue: Promise<unknown> = Promise.resolve();
  let current: AbortController | null = null;
  const busy = (on: boolean) => {
    stopBtn.hidden = !(on || speech?.active());
    sendBtn.disabled = on;
    el.classList.toggle("busy", on);
  };

  async function playTurn(
    run: (signal: AbortSignal, onEvent: (e: EngineEvent) => void) => Promise<TurnEnd | null>,
  ) {
    const ac = new AbortController();
    current = ac;
    busy(true);
    const reply = bubble("assistant", "");
    reply.classList.add("pending");
    const text = reply.querySelector(".text")!;
    const tools = h("div", { class: "tools" });
    reply.append(tools);
    const chips = new Map<string, HTMLElement>();
    status.textContent = "thinking…";
    stage?.newReply();
    // A new turn silences the last one; this reply speaks if the character's voice is on.
    speech?.newTurn();
    const sp = voice();
    let shown = "";
    // The sentence being spoken is marked in the reply's text (its words unchanged); anything else the
    // bubble shows (an error, "(no reply)") is left as it is.
    const paint = () => {
      const s = speakingSeg;
      const now = text.textContent ?? "";
      if (!s || now !== shown || s.end > shown.length) {
        if (text.childElementCount) text.textContent = now;
        return;
      }
      // The words only: the spaces around the sentence belong to its segment, not to the mark.
      const part = shown.slice(s.start, s.end);
      const from = s.start + (part.length - part.trimStart().length);
      const to = s.start + part.trimEnd().length;
      text.replaceChildren(
        shown.slice(0, from),
        h("mark", { class: "speaking", "data-testid": "speaking" }, shown.slice(from, to)),
        shown.slice(to),
      );
    };
    repaint = paint;
    try {
      vocabulary = await bridge
        .invoke<{ vocabulary: Vocabulary }>("vocabulary_get")
        .then((r) => r.vocabulary)
        .catch(() => vocabulary);
      const end = await run(ac.signal, (e) => {
        if (e.type === "text") {
          shown += e.delta;
          text.textContent = shown;
          reply.classList.remove("pending");
          status.textContent = "replying…";
          // Speaking, cues play as their sentence's audio starts; silent, as the text shows.
          paint();
          if (sp) sp.text(e.delta);
          else stage?.reveal(shown.length);
          log.scrollTop = log.scrollHeight;
        } else if (e.type === "cue") {
          stage?.cue(e.offset, e.arguments);
          sp?.cue(e.offset, e.arguments as Cue);
        } else if (e.type === "tool_status") {
          let chip = chips.get(e.call_id);
          if (!chip) {
            chip = h("span", { class: "chip", "data-testid": "tool-status" });
            chips.set(e.call_id, chip);
            tools.append(chip);
          }
          chip.textContent = `${e.name}: ${e.status}`;
          chip.dataset.status = e.status;
        } else if (e.type === "tool_call" && e.name !== "generate_express") {
          const result = typeof e.result === "string" ? e.result : e.result.text;
          tools.append(
            h("span", { class: "chip client", "data-testid": "tool-call" }, `${e.name} → ${result}`),
          );
        }
      });
      reply.classList.remove("pending");
      // Stopped or failed: silent at once; otherwise the speech plays out and reveals the cues left.
      // A [SILENT] reply is not read out.
      const speakOn =
        !!sp && !!end && end.outcome !== "stopped" && end.outcome !== "error" && !isSilent(end.text ?? "");
      if (!speakOn) sp?.stop();
      if (!end) {
        reply.remove();
        return null;
      }
      if (end.outcome === "error") {
        reply.classList.add("error");
        text.textContent = plainError(end.failure ?? { kind: "other", message: end.error ?? "" });
        text.setAttribute("data-testid", "error");
        text.setAttribute("title", end.error ?? "");
      } else if (end.outcome === "stopped") {
        reply.classList.add("stopped");
        if (!shown) text.textContent = "(stopped)";
      } else if ((end.outcome === "silent" && !shown) || isSilent(end.text)) {
        reply.classList.add("silent");
        text.textContent = "(no reply)";
      }
      if (speakOn) sp!.end();
      else stage?.reveal(Number.MAX_SAFE_INTEGER);
      log.scrollTop = log.scrollHeight;
      return end;
    } finally {
      status.textContent = "";
      current = null;
      busy(false);
    }
  }

  // Turns of one panel run one at a time, so the events of the turn playing now go to its bubble.
  let onTurnEvent: ((e: EngineEvent) => void) | null = null;
  const turns = createCharacterTurns({
    dispatcher,
    addressing,
    emitAddressed: (p) => bridge.emit(CHARACTER_ADDRESSED_EVENT, p),
    onEvent: (e) => onTurnEvent?.(e),
  });

  // One failed step must not stall the panel's queue: show it and go on.
  const shown = (e: unknown) => {
    const b = bubble("assistant", (e as Error)?.message ?? String(e));
    b.classList.add("error");
  };

  function send(message: string): void {
    const t = message.trim();
    if (!t) return;
    log.querySelector(".empty")?.remove();
    bubble("user", t);
    queue = queue
      .then(async () => {
        const end = await playTurn((signal, onEvent) => {
          onTurnEvent = onEvent;
          return turns.userTurn(t, signal);
        });
        saveHistory(
          { role: "user", content: t, at: Date.now() },
          ...(end?.text ? [{ role: "assistant" as const, content: end.text, at: Date.now() }] : []),
        );
      })
      .catch(shown);
  }

  /**
   * A turn that did not start from the user (another character addressed this one, a mod sent a signal):
   * claimed at once, so the first window to hear the event runs it even while it is busy, then queued.
   */
  function incomingTurn(
    claim: Promise<boolean>,
    incoming: { text: string; from: string },
    run: (signal: AbortSignal) => Promise<TurnEnd | null>,
  ): void {
    queue = queue
      .then(async () => {
        if (!(await claim)) return;
        const shownIncoming = bubble("incoming", incoming.text, incoming.from);
        const end = await playTurn((signal, onEvent) => {
          onTurnEvent = onEvent;
          return run(signal);
        });
        // A stale or capped event runs no turn: nothing to keep.
        if (!end) {
          shownIncoming.remove();
          return;
        }
        saveHistory(
          { role: "user", content: incoming.text, at: Date.now(), from: incoming.from },
          ...(end.text && !isSilent(end.text)
            ? [{ role: "assistant" as const, content: end.text, at: Date.now() }]
            : []),
        );
      })
      .catch(shown);
  }

  const offAddressed = bridge.on(CHARACTER_ADDRESSED_EVENT, (payload) => {
    const p = payload as { to?: { id?: string }; from?: { name?: string }; text?: string; turnId?: string };
    if (p?.to?.id !== presetId) return;
    const claim = bridge
      .invoke<boolean>("addressed_claim", { presetId, turnId: p.turnId ?? "" })
      .catch(() => false);
    incomingTurn(claim, { text: p.text ?? "", from: p.from?.name ?? "someone" }, (signal) =>
      turns.addressedTurn(payload, signal),
    );
  });

  const offSignal = opts.signals
    ? bridge.on(SIGNAL_EVENT, (payload) => {
        const parsed = SignalEventSchema.safeParse(payload);
        if (!parsed.success) return;
        const s = parsed.data;
        const claim = bridge.invoke<boolean>("signal_claim", { id: s.id }).catch(() => false);
        incomingTurn(claim, { text: signalLabel(s), from: "signal" }, (signal) =>
          turns.signalTurn(s, signal),
        );
      })
    : () => {};

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const t = input.value;
    input.value = "";
    send(t);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      form.requestSubmit();
    }
  });
  stopBtn.addEventListener("click", () => {
    current?.abort();
    speech?.stop();
  });

  const offs = [
    // Voice turned off or muted: silence at once.
    kv.watch(isVoiceKey, () => {
      if (!speaks(kv, presetId)) speech?.stop();
    }),
    kv.watch(historyKey(presetId), () => {
      // Another tab wrote this preset's history (or the host came back): show it when idle.
      if (!current && sig(history()) !== shownSig) renderHistory();
    }),
    kv.watch(
      (k) => k === "yui.presets" || k === "yui.relations" || k === `yui.${presetId}.relations`,
      () => refreshHead(),
    ),
  ];

  return {
    el,
    presetId,
    send,
    dispose() {
      current?.abort();
      offAddressed();
      offSignal();
      for (const off of offs) off();
      backend?.close();
      speech?.dispose();
      stage?.dispose();
    },
  };
}
