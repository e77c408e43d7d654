/**
 * Her speech bubble in the desktop view (docs/desktop.md "Her bubble"): what it shows and when, kept apart from
 * where it is drawn (a BubbleView: the shell's own window beside her head, or the page above her in a plain
 * browser). It shows, first to last: her reply while it streams; the app's note (an error, styled apart from
 * her speech, kept until dismissed or fixed by a reply that works); her reply after it ended, kept
 * BUBBLE_HOLD_MS then faded; a hint (no tray: how to reach her menu), faded like a reply; and what she says
 * about her backend (the first run, kept until it answers or she is told "later").
 */
import type { Bubble, BubbleAction } from "../protocol/shell.ts";
import { h } from "./dom.ts";
import type { PanelOn } from "./panel-events.ts";

/** How long the bubble stays after her reply ends, then fades. */
export const BUBBLE_HOLD_MS = 8000;
/** The fade's length (desktop.css `.bubble` and shell/bubble/bubble.css transitions). */
export const FADE_MS = 800;
/** A reply longer than this (characters or lines) offers the full reply in Chat. */
export const LONG_REPLY = { chars: 240, lines: 5 } as const;

/** Where a bubble is drawn. */
export interface BubbleView {
  /** Shows `b` (replacing what was shown). */
  show(b: Bubble): void;
  /** Shows nothing. */
  hide(): void;
}

/** What she says by herself (first run, no tray): her words, commands to type, her buttons. */
export interface Saying {
  text: string;
  commands?: string[];
  actions?: Bubble["actions"];
}

/** The bubble's one controller: the panel's replies and errors, the app's words, the buttons pressed. */
export interface BubbleControl {
  /** Her words about her backend (null: it answers now, she stops saying it). */
  firstRun(s: Saying | null): void;
  /** A hint she says once and lets fade (no tray). */
  hint(s: Saying): void;
  /** Whether its buttons that open Chat and Settings work here (in a shell); off, only Dismiss is offered. */
  canOpen(on: boolean): void;
  /** A button of the bubble was pressed (dismiss: the note, her first-run words or the hint go away). */
  action(a: BubbleAction): void;
  /** What it shows now (null: nothing). */
  shown(): Bubble | null;
  dispose(): void;
}

const isLong = (t: string) => t.length > LONG_REPLY.chars || t.split("\n").length > LONG_REPLY.lines;

/** What the bubble holds: the reply, the app's note, her first-run words, a hint. */
interface BubbleSources {
  reply: { text: string; streaming: boolean; fading: boolean } | null;
  note: string | null;
  first: Saying | null;
  hint: (Saying & { fading: boolean }) | null;
}

/**
 * What the bubble shows of `src`: a streaming reply first, then the note, the reply, the hint, her first-run
 * words; its Chat and Settings buttons only where they can open (`canOpen`).
 */
function pickBubble(src: BubbleSources, canOpen: boolean): Bubble | null {
  const { reply, note, first, hint } = src;
  const opens = (acts: Bubble["actions"]) => acts.filter((a) => canOpen || a.action === "dismiss");
  const speech = (text: string, more: Partial<Bubble> = {}): Bubble => ({
    kind: "speech",
    text,
    commands: [],
    actions: [],
    streaming: false,
    fading: false,
    ...more,
  });
  const chat = (text: string) =>
    isLong(text) ? opens([{ action: "chat", label: "Full reply in Chat" }]) : [];
  if (reply?.streaming) return speech(reply.text, { streaming: true, actions: chat(reply.text) });
  if (note !== null)
    return {
      kind: "note",
      text: note,
      commands: [],
      actions: opens([
        { action: "settings", label: "Settings" },
        { action: "dismiss", label: "Dismiss" },
      ]),
      streaming: false,
      fading: false,
    };
  if (reply) return speech(reply.text, { fading: reply.fading, actions: chat(reply.text) });
  // The hint is short and fades: said first, then what she keeps saying.
  if (hint)
    return speech(hint.text, {
      commands: hint.commands ?? [],
      actions: opens(hint.actions ?? []),
      fading: hint.fading,
    });
  if (first)
    return speech(first.text, { commands: first.commands ?? [], actions: opens(first.actions ?? []) });
  return null;
}

/**
 * Makes `view` follow the panel's replies (`…` as a reply starts, its words as they stream, its final words,
 * the fade BUBBLE_HOLD_MS after the turn; nothing for a turn that did not run), its errors as the app's note,
 * and what the app has her say.
 */
export function followReplies(on: PanelOn, view: BubbleView): BubbleControl {
  let canOpen = false;
  let reply: BubbleSources["reply"] = null;
  let note: BubbleSources["note"] = null;
  let first: BubbleSources["first"] = null;
  let hint: BubbleSources["hint"] = null;
  let timers: ReturnType<typeof setTimeout>[] = [];
  let hintTimers: ReturnType<typeof setTimeout>[] = [];
  let current: Bubble | null = null;
  const render = () => {
    const next = pickBubble({ reply, note, first, hint }, canOpen);
    if (JSON.stringify(next) === JSON.stringify(current)) return;
    current = next;
    if (next) view.show(next);
    else view.hide();
  };
  const clear = (list: ReturnType<typeof setTimeout>[]) => {
    for (const t of list) clearTimeout(t);
    list.length = 0;
  };
  /** `set(true)` after `hold`, then `set(false)`... gone FADE_MS later. */
  const fadeLater = (list: ReturnType<typeof setTimeout>[], fade: () => void, gone: () => void) => {
    clear(list);
    list.push(
      setTimeout(() => {
        fade();
        render();
        list.push(
          setTimeout(() => {
            gone();
            render();
          }, FADE_MS),
        );
      }, BUBBLE_HOLD_MS),
    );
  };

  const offs = [
    on("reply", (text) => {
      clear(timers);
      reply = { text: text || "…", streaming: true, fading: false };
      render();
    }),
    on("error", (text) => {
      // The app's note, not her words: the reply that failed is gone from her bubble.
      note = text;
      reply = null;
      render();
    }),
    on("reply-end", (text) => {
      if (text === null) reply = null;
      else if (reply && text !== note) {
        // A reply that worked fixes what the note was about.
        note = null;
        reply = { text: text || reply.text, streaming: false, fading: false };
      }
      render();
    }),
    on("busy", (busy) => {
      if (busy || !reply) return;
      if (reply.streaming) reply.streaming = false;
      render();
      fadeLater(
        timers,
        () => {
          if (reply) reply.fading = true;
        },
        () => {
          reply = null;
        },
      );
    }),
  ];
  return {
    canOpen(on) {
      canOpen = on;
      render();
    },
    firstRun(s) {
      first = s;
      render();
    },
    hint(s) {
      hint = { ...s, fading: false };
      render();
      fadeLater(
        hintTimers,
        () => {
          if (hint) hint.fading = true;
        },
        () => {
          hint = null;
        },
      );
    },
    action(a) {
      if (a !== "dismiss") return;
      // What is shown goes: the note, else her first-run words, else the hint, else the reply.
      if (current?.kind === "note") note = null;
      else if (first && current?.text === first.text) first = null;
      else if (hint && current?.text === hint.text) hint = null;
      else reply = null;
      render();
    },
    shown: () => current,
    dispose() {
      clear(timers);
      clear(hintTimers);
      timers = [];
      hintTimers = [];
      for (const off of offs) off();
    },
  };
}

/**
 * The bubble drawn in the page above her (a plain browser: no shell to draw it beside her); `changed` runs
 * when it shows, hides or changes; `act` hears its buttons.
 */
export function bubbleElement(
  changed: () => void,
  act: (a: BubbleAction) => void,
): BubbleView & { el: HTMLElement; off(): void } {
  const text = h("div", { class: "bubble-text", "data-testid": "bubble-text" });
  const cmds = h("div", { class: "bubble-commands" });
  const acts = h("div", { class: "bubble-actions" });
  const el = h("div", { class: "bubble", "data-testid": "bubble", hidden: true }, text, cmds, acts);
  let on = true;
  return {
    el,
    show(b) {
      if (!on) return;
      text.textContent = b.text;
      cmds.replaceChildren(...b.commands.map((c) => h("code", {}, c)));
      acts.replaceChildren(
        ...b.actions.map((a) => {
          const button = h("button", { type: "button" }, a.label);
          button.addEventListener("click", () => act(a.action));
          return button;
        }),
      );
      el.hidden = false;
      el.classList.toggle("note", b.kind === "note");
      el.classList.toggle("fading", b.fading);
      text.scrollTop = text.scrollHeight;
      changed();
    },
    hide() {
      el.hidden = true;
      changed();
    },
    /** The shell draws the bubble from now on: this one stays hidden. */
    off() {
      on = false;
      el.hidden = true;
      changed();
    },
  };
}
