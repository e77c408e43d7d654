import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BUBBLE_HOLD_MS, type BubbleView, followReplies } from "./desktop-bubble.ts";
import { createPanelEvents } from "./panel-events.ts";

// The bubble's words and timing against the panel's real events; the view records what it was told.
describe("her bubble follows the panel's replies", () => {
  let said: string[];
  let view: BubbleView;
  beforeEach(() => {
    vi.useFakeTimers();
    said = [];
    view = { say: (t) => said.push(t), fade: () => said.push("<fade>"), hide: () => said.push("<hide>") };
  });
  afterEach(() => vi.useRealTimers());

  it("shows … as a reply starts, its words as they stream, its final words, and fades BUBBLE_HOLD_MS after the turn", () => {
    const ev = createPanelEvents();
    followReplies(ev.on, view);
    ev.emit("busy", true);
    ev.emit("reply", "");
    ev.emit("reply", "Hello");
    ev.emit("reply", "Hello there.");
    ev.emit("reply-end", "Hello there.");
    ev.emit("busy", false);
    expect(said).toEqual(["…", "Hello", "Hello there.", "Hello there."]);
    vi.advanceTimersByTime(BUBBLE_HOLD_MS - 1);
    expect(said.at(-1)).toBe("Hello there.");
    vi.advanceTimersByTime(1);
    expect(said.at(-1)).toBe("<fade>");
    vi.advanceTimersByTime(800);
    expect(said.at(-1)).toBe("<hide>");
  });

  it("puts the error in plain words in place of the streamed text, and a new reply stops the fade", () => {
    const ev = createPanelEvents();
    followReplies(ev.on, view);
    ev.emit("reply", "");
    ev.emit("reply-end", "The model's server could not be reached.");
    ev.emit("busy", false);
    vi.advanceTimersByTime(BUBBLE_HOLD_MS - 100);
    ev.emit("busy", true);
    ev.emit("reply", "");
    vi.advanceTimersByTime(10 * BUBBLE_HOLD_MS);
    expect(said).toEqual(["…", "The model's server could not be reached.", "…"]);
  });

  it("hides a reply that never was (the turn did not run), and stops following when told", () => {
    const ev = createPanelEvents();
    const stop = followReplies(ev.on, view);
    ev.emit("reply", "");
    ev.emit("reply-end", null);
    expect(said).toEqual(["…", "<hide>"]);
    stop();
    ev.emit("reply", "more");
    ev.emit("busy", false);
    vi.advanceTimersByTime(10 * BUBBLE_HOLD_MS);
    expect(said).toEqual(["…", "<hide>"]);
  });
});
