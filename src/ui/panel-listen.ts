/**
 * The panel's listening (docs/voice.md#listening): the push-to-talk button in the composer (and the space bar
 * while nothing editable has the keyboard, or the input is empty), hands-free in the windows that hold the conversation with main's
 * character (the browser build's main view and her desktop window), the listening indicator in the chat and
 * on her stage (one click on it turns hands-free off), and the interruption: the user speaking over her voice
 * is the same Stop as the button.
 */
import type { WindowKind } from "../app/tools/window-tools.ts";
import { LISTEN_EVENT } from "../voice/listen/listen-event.ts";
import { createListening, type ListenEvent, type ListenState } from "../voice/listen/listening.ts";
import { createMic } from "../voice/listen/mic.ts";
import { transcribeOnHost } from "../voice/listen/transcribe.ts";
import { h } from "./dom.ts";
import { isListenKey, listenSettingsOf, setHandsFree } from "./listen-controls.ts";
import type { PanelView } from "./panel-view.ts";
import type { StoreMirror } from "./store-mirror.ts";

/** What the indicator says in each state. */
export const LISTEN_LABELS: Record<ListenState, string> = {
  off: "",
  starting: "Opening the microphone…",
  listening: "Listening",
  hearing: "Hearing you…",
  talking: "Talking — let go to send",
  transcribing: "Writing down what you said…",
};

const MIC_ICON =
  '<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" fill="none" stroke="currentColor" ' +
  'stroke-width="2" stroke-linecap="round"><rect x="9" y="3" width="6" height="11" rx="3"/>' +
  '<path d="M5 11a7 7 0 0 0 14 0M12 18v3"/></svg>';

/** The windows where hands-free runs: those that hold main's conversation (one microphone, one listener). */
const HANDS_FREE_KINDS: readonly WindowKind[] = ["browser", "main"];

export function createPanelListen(o: {
  kv: StoreMirror;
  presetId: string;
  kind: WindowKind;
  view: PanelView;
  /** Whether her voice is playing. */
  herVoice(): boolean;
  /** The same Stop as the button: her voice and her turn. */
  stop(): void;
  send(text: string): void;
  note(message: string): void;
  /** Her listening changed state (the panel's `listening` event). */
  onState?(state: ListenState): void;
}) {
  const { view, kv } = o;
  const timeline: ListenEvent[] = [];
  const talkBtn = h("button", {
    class: "talk secondary",
    type: "button",
    title: "Hold to talk (or hold the space bar); let go to send",
    "aria-label": "Hold to talk",
    "data-testid": "talk",
  });
  // A drawn microphone: an emoji depends on the system's fonts.
  talkBtn.innerHTML = MIC_ICON;
  const chatBadge = h("button", {
    class: "listen-badge",
    type: "button",
    hidden: true,
    title: "Click to stop listening",
    "data-testid": "listening",
  });
  const stageBadge = h("button", {
    class: "listen-badge on-stage",
    type: "button",
    hidden: true,
    title: "Click to stop listening",
    "data-testid": "listening-stage",
  });
  view.form.insertBefore(talkBtn, view.form.firstChild);
  // In the chat's header, so nothing in the composer moves under the pointer holding the button.
  view.status.after(chatBadge);
  view.stageBox.append(stageBadge);

  const listening = createListening({
    openMic: createMic,
    transcribe: (audio, signal) => transcribeOnHost(audio, signal),
    settings: () => listenSettingsOf(kv),
    herVoice: o.herVoice,
    onInterrupt: o.stop,
    onPartial: (text) => {
      view.input.value = text;
    },
    onUtterance: (text) => {
      view.input.value = "";
      o.send(text);
    },
    onState: (state) => {
      const open = state !== "off";
      for (const b of [chatBadge, stageBadge]) {
        b.hidden = !open;
        b.textContent = LISTEN_LABELS[state];
        b.dataset.state = state;
      }
      view.el.classList.toggle("listening", open);
      talkBtn.classList.toggle("held", state === "talking");
      o.onState?.(state);
      // For whoever inspects the page (tests, bench:listen: listen-event.ts); nothing in the app listens.
      chatBadge.dispatchEvent(
        new CustomEvent(LISTEN_EVENT, { detail: { presetId: o.presetId, state, timeline }, bubbles: true }),
      );
    },
    onError: o.note,
    timeline,
  });
  const offBadge = (e: Event) => {
    // Not a click on her (which opens her input in the desktop view).
    e.stopPropagation();
    if (listening.talking()) listening.pushEnd(false);
    setHandsFree(kv, false);
  };
  chatBadge.addEventListener("click", offBadge);
  stageBadge.addEventListener("click", offBadge);

  // Push-to-talk with the pointer: sliding off the button before letting go keeps the words to fix.
  talkBtn.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    talkBtn.setPointerCapture?.(e.pointerId);
    listening.pushStart();
  });
  talkBtn.addEventListener("pointerup", (e) => {
    const r = talkBtn.getBoundingClientRect();
    const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
    listening.pushEnd(inside);
  });
  talkBtn.addEventListener("pointercancel", () => listening.pushEnd(false));

  // The space bar, while nothing that takes typing has the keyboard; Escape while held keeps the words.
  const typing = (t: EventTarget | null) =>
    t instanceof HTMLElement && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(t.tagName));
  // In the empty input too: a message does not begin with a space, so Ctrl+Alt+Y (which opens her input from
  // anywhere on the desktop) and then holding the space bar is push-to-talk from the keyboard alone.
  const emptyInput = (t: EventTarget | null) => t === view.input && view.input.value === "";
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.code === "Space" && !e.repeat && (!typing(e.target) || emptyInput(e.target))) {
      e.preventDefault();
      listening.pushStart();
    } else if (e.key === "Escape" && listening.talking()) listening.pushEnd(false);
  };
  const onKeyUp = (e: KeyboardEvent) => {
    if (e.code === "Space" && listening.talking()) {
      e.preventDefault();
      listening.pushEnd(true);
    }
  };
  /** Push-to-talk held by the desktop's global key: the window losing the keyboard does not end it. */
  let heldGlobally = false;
  const onBlur = () => {
    if (!heldGlobally) listening.pushEnd(false);
  };
  window.addEventListener("keydown", onKeyDown);
  window.addEventListener("keyup", onKeyUp);
  window.addEventListener("blur", onBlur);

  const handsFree = () => {
    if (HANDS_FREE_KINDS.includes(o.kind)) listening.setHandsFree(listenSettingsOf(kv).hands_free);
  };
  handsFree();
  const offKv = kv.watch(isListenKey, () => {
    handsFree();
    listening.retune();
  });

  return {
    stageBadge,
    /** Push-to-talk from the desktop's global hold key (the shell's `talk`): pressed, or let go (sends). */
    talk(down: boolean): void {
      heldGlobally = down;
      if (down) listening.pushStart();
      else listening.pushEnd(true);
    },
    dispose(): void {
      offKv();
      window.removeEventListener("keydown", onKeyDown);
      window.removeEventListener("keyup", onKeyUp);
      window.removeEventListener("blur", onBlur);
      listening.dispose();
    },
  };
}
