import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DEFAULT_OLLAMA_MODEL } from "../protocol/backend-status.ts";
import type { Bubble } from "../protocol/shell.ts";
import { BUBBLE_HOLD_MS, type BubbleView, FADE_MS, followReplies } from "./desktop-bubble.ts";
import { FIRST_RUN, firstRunSaying } from "./first-run.ts";
import { createPanelEvents } from "./panel-events.ts";

// The bubble's words and timing against the panel's real events; the view records what it was told.
describe("her bubble follows the panel's replies", () => {
  let shown: (Bubble | null)[];
  let view: BubbleView;
  const last = () => shown.at(-1) ?? null;
  const said = () => shown.map((b) => (b ? `${b.kind}:${b.text}${b.fading ? "<fade>" : ""}` : "<hide>"));
  beforeEach(() => {
    vi.useFakeTimers();
    shown = [];
    view = { show: (b) => shown.push(b), hide: () => shown.push(null) };
  });
  afterEach(() => vi.useRealTimers());

  it("shows … as a reply starts, its words as they stream, its final words, and fades BUBBLE_HOLD_MS after the turn", () => {
    const ev = createPanelEvents();
    followReplies(ev.on, view);
    ev.emit("busy", true);
    ev.emit("reply", "");
    ev.emit("reply", "Hello");
    expect(last()?.streaming).toBe(true);
    ev.emit("reply", "Hello there.");
    ev.emit("reply-end", "Hello there.");
    ev.emit("busy", false);
    expect(said()).toEqual(["speech:…", "speech:Hello", "speech:Hello there.", "speech:Hello there."]);
    expect(last()?.streaming).toBe(false);
    vi.advanceTimersByTime(BUBBLE_HOLD_MS - 1);
    expect(last()?.fading).toBe(false);
    vi.advanceTimersByTime(1);
    expect(last()?.fading).toBe(true);
    vi.advanceTimersByTime(FADE_MS);
    expect(last()).toBeNull();
  });

  it("offers a long reply in full in Chat once a shell can open it", () => {
    const ev = createPanelEvents();
    const c = followReplies(ev.on, view);
    const long = "word ".repeat(100);
    ev.emit("reply", long);
    expect(last()?.actions).toEqual([]);
    c.canOpen(true);
    expect(last()?.actions).toEqual([{ action: "chat", label: "Full reply in Chat" }]);
    ev.emit("reply", "short");
    expect(last()?.actions).toEqual([]);
  });

  it("shows an error as the app's note, which stays until dismissed or until a reply works", () => {
    const ev = createPanelEvents();
    const c = followReplies(ev.on, view);
    ev.emit("reply", "");
    ev.emit("error", "The model's server could not be reached.");
    ev.emit("reply-end", "The model's server could not be reached.");
    ev.emit("busy", false);
    expect(last()).toMatchObject({ kind: "note", text: "The model's server could not be reached." });
    vi.advanceTimersByTime(10 * BUBBLE_HOLD_MS);
    expect(last()?.kind).toBe("note");
    // A new reply streams over it; one that works fixes it.
    ev.emit("busy", true);
    ev.emit("reply", "Back");
    expect(last()).toMatchObject({ kind: "speech", text: "Back" });
    ev.emit("reply-end", "Back again.");
    ev.emit("busy", false);
    expect(last()).toMatchObject({ kind: "speech", text: "Back again." });
    vi.advanceTimersByTime(BUBBLE_HOLD_MS + FADE_MS);
    expect(last()).toBeNull();
    // Dismissed: gone at once.
    ev.emit("error", "Again.");
    expect(last()?.kind).toBe("note");
    c.action("dismiss");
    expect(last()).toBeNull();
  });

  it("hides a reply that never was (the turn did not run), and stops following when told", () => {
    const ev = createPanelEvents();
    const c = followReplies(ev.on, view);
    ev.emit("reply", "");
    ev.emit("reply-end", null);
    expect(said()).toEqual(["speech:…", "<hide>"]);
    c.dispose();
    ev.emit("reply", "more");
    ev.emit("busy", false);
    vi.advanceTimersByTime(10 * BUBBLE_HOLD_MS);
    expect(said()).toEqual(["speech:…", "<hide>"]);
  });

  it("says her first-run words with the commands until her backend answers, behind her replies; a hint fades", () => {
    const ev = createPanelEvents();
    const c = followReplies(ev.on, view);
    const down = { ok: false, base_url: "http://127.0.0.1:11434/v1", reason: "connection refused" };
    const saying = firstRunSaying(down, undefined)!;
    expect(saying.commands).toEqual(["ollama serve", `ollama pull ${DEFAULT_OLLAMA_MODEL}`]);
    c.firstRun(saying);
    expect(last()).toMatchObject({
      kind: "speech",
      text: FIRST_RUN.ollama(down.base_url, down.reason),
      commands: saying.commands,
      actions: [{ action: "dismiss", label: "Later" }],
    });
    c.canOpen(true);
    expect(last()?.actions.map((a) => a.action)).toEqual(["settings", "dismiss"]);
    vi.advanceTimersByTime(10 * BUBBLE_HOLD_MS);
    expect(last()?.text).toBe(saying.text);
    ev.emit("reply", "hi");
    expect(last()?.text).toBe("hi");
    ev.emit("reply-end", "hi");
    ev.emit("busy", false);
    vi.advanceTimersByTime(BUBBLE_HOLD_MS + FADE_MS);
    expect(last()?.text).toBe(saying.text);
    // A hint meanwhile is said first, and fades back to her first-run words.
    c.hint({ text: FIRST_RUN.noTray });
    expect(last()?.text).toBe(FIRST_RUN.noTray);
    vi.advanceTimersByTime(BUBBLE_HOLD_MS + FADE_MS);
    expect(last()?.text).toBe(saying.text);
    c.firstRun(firstRunSaying({ ok: true, base_url: down.base_url, reason: "" }, undefined));
    expect(last()).toBeNull();
    c.hint({ text: FIRST_RUN.noTray });
    expect(last()?.text).toBe(FIRST_RUN.noTray);
    vi.advanceTimersByTime(BUBBLE_HOLD_MS + FADE_MS);
    expect(last()).toBeNull();
  });
});
