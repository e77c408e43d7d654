/**
 * The stage area of main's character: mounts the avatar stage (src/avatar, loaded on demand so the chat is
 * usable at once) on a canvas and plays cues as the reply's text is revealed. Falls back to a placeholder
 * when WebGL or the model is not available. With `?stage=empty` in the page's URL the stage runs with no
 * character loaded (bench/idle.ts compares the companion's idle cost against it).
 */
import type { StageHandle } from "../avatar/stage.ts";
import { h, replace } from "./dom.ts";

/** What the panel drives, and what its owner (the desktop view) follows. */
export interface StageArea {
  /** A new reply starts: pending cues are dropped. */
  newReply(): void;
  /** A cue anchored at a text offset. */
  cue(offset: number, args: Record<string, unknown>): void;
  /** The text shown so far reached `position`. */
  reveal(position: number): void;
  /** Lip sync: the mouth shapes (aa, ih, ou, ee, oh) now. */
  mouth(weights: Partial<Record<"aa" | "ih" | "ou" | "ee" | "oh", number>>): void;
  /** Hands `f` the stage's handle once the stage exists (at once when it does; never without WebGL). */
  onReady(f: (stage: StageHandle) => void): void;
  /**
   * Calls `f` with the note shown instead of her (loading, or why she cannot be shown) now and at each
   * change; null once she is shown.
   */
  onNote(f: (note: HTMLElement | null) => void): void;
  dispose(): void;
}

/** Mounts the stage in `box` for a preset's model (`/avatar/<presetId>.vrm`). */
export function mountStage(box: HTMLElement, presetId: string): StageArea {
  const canvas = h("canvas", { class: "stage-canvas", "aria-label": "the character" });
  const note = h("div", { class: "stage-note" }, "Loading the character…");
  replace(box, canvas, note);
  let disposed = false;
  let noteNow: HTMLElement | null = note;
  const noteFollowers: Array<(note: HTMLElement | null) => void> = [];
  const setNote = (n: HTMLElement | null) => {
    noteNow = n;
    for (const f of noteFollowers) f(n);
  };
  let impl: (Omit<StageArea, "onReady" | "onNote"> & { handle: StageHandle }) | null = null;
  const early: Array<(s: NonNullable<typeof impl>) => void> = [];
  (async () => {
    try {
      const [{ createStage }, { createCueScheduler }] = await Promise.all([
        import("../avatar/stage.ts"),
        import("../avatar/cues.ts"),
      ]);
      if (disposed) return;
      const stage = createStage(canvas, { framing: "full" });
      const cues = createCueScheduler((cue) => stage.playCue(cue));
      impl = {
        newReply: () => cues.reset(),
        cue: (offset, args) => cues.add(offset, args),
        reveal: (p) => cues.reveal(p),
        mouth: (w) => stage.setMouth(w),
        dispose: () => stage.dispose(),
        handle: stage,
      };
      for (const f of early.splice(0)) f(impl);
      // `?stage=empty`: the same stage and loop with no character in it, the peer of bench:idle.
      if (new URLSearchParams(location.search).get("stage") !== "empty") {
        await stage.load(`/avatar/${encodeURIComponent(presetId)}.vrm`);
      }
      note.remove();
      setNote(null);
    } catch (e) {
      box.classList.add("placeholder");
      note.textContent = `The character could not be shown here (${(e as Error).message}). Chat works as usual.`;
      setNote(note);
    }
  })();
  const later = (f: (s: NonNullable<typeof impl>) => void): void => {
    if (impl) f(impl);
    else early.push(f);
  };
  return {
    newReply: () => later((s) => s.newReply()),
    cue: (o, a) => later((s) => s.cue(o, a)),
    reveal: (p) => later((s) => s.reveal(p)),
    // Before the stage exists there is no mouth to move.
    mouth: (w) => impl?.mouth(w),
    onReady: (f) => later((s) => f(s.handle)),
    onNote(f) {
      noteFollowers.push(f);
      f(noteNow);
    },
    dispose() {
      disposed = true;
      impl?.dispose();
    },
  };
}
