/**
 * Her speech bubble in the desktop view (docs/desktop.md "The desktop view"): the reply of the turn playing now
 * as it streams, kept BUBBLE_HOLD_MS after the turn ends, then faded. It follows the panel's events
 * (panel-events.ts); what it says and when is kept apart from where it is drawn (a BubbleView), so another
 * view can draw the same bubble elsewhere.
 */
import { h } from "./dom.ts";
import type { PanelOn } from "./panel-events.ts";

/** How long the bubble stays after her reply ends, then fades. */
export const BUBBLE_HOLD_MS = 8000;
/** The fade's length (desktop.css `.bubble` transition). */
const FADE_MS = 800;

/** Where a bubble is drawn. */
export interface BubbleView {
  /** Shows `text` (at full opacity, stopping a fade). */
  say(text: string): void;
  /** Starts fading what it shows. */
  fade(): void;
  /** Shows nothing. */
  hide(): void;
}

/**
 * Makes `view` follow the panel's replies: "…" as a reply starts, its words as they stream, its final words
 * when it ends (nothing when the turn did not run), the fade BUBBLE_HOLD_MS after the turn ends.
 */
export function followReplies(on: PanelOn, view: BubbleView): () => void {
  let fade: ReturnType<typeof setTimeout> | undefined;
  const offs = [
    on("reply", (text) => {
      clearTimeout(fade);
      view.say(text || "…");
    }),
    on("reply-end", (text) => {
      if (text === null) view.hide();
      else if (text) view.say(text);
    }),
    on("busy", (busy) => {
      if (busy) return;
      clearTimeout(fade);
      fade = setTimeout(() => {
        view.fade();
        fade = setTimeout(() => view.hide(), FADE_MS);
      }, BUBBLE_HOLD_MS);
    }),
  ];
  return () => {
    clearTimeout(fade);
    for (const off of offs) off();
  };
}

/** The bubble drawn in the page above her; `changed` runs when it shows, hides or changes its words. */
export function bubbleElement(changed: () => void): BubbleView & { el: HTMLElement } {
  const text = h("div", { class: "bubble-text", "data-testid": "bubble-text" });
  const el = h("div", { class: "bubble", "data-testid": "bubble", hidden: true }, text);
  return {
    el,
    say(t) {
      text.textContent = t;
      el.hidden = false;
      el.classList.remove("fading");
      changed();
    },
    fade: () => el.classList.add("fading"),
    hide() {
      el.hidden = true;
      changed();
    },
  };
}
