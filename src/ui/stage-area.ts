/**
 * The stage area of main's character: mounts the avatar stage (src/avatar, loaded on demand so the chat is
 * usable at once) on a canvas and plays cues as the reply's text is revealed. Falls back to a placeholder
 * when WebGL or the model is not available. With `?stage=empty` in the page's URL the stage runs with no
 * character loaded (bench/idle.ts compares the companion's idle cost against it).
 */
import type { StageHandle } from "../avatar/stage.ts";
import { h, replace } from "./dom.ts";
import type { FaceBridge } from "./stage-face.ts";
import { keepSilhouette, waitingSilhouette } from "./stage-silhouette.ts";

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
   * Calls `f` with the note shown instead of her (her silhouette while she loads, or why she cannot be shown) now and at each
   * change; null once she is shown.
   */
  onNote(f: (note: HTMLElement | null) => void): void;
  dispose(): void;
}

/**
 * Mounts the stage in `box` for a preset's model (`/avatar/<presetId>.vrm`). With `bridge`, her face is shared
 * with her other stages and relaxes after its hold (stage-face.ts).
 */
export function mountStage(box: HTMLElement, presetId: string, bridge?: FaceBridge): StageArea {
  const canvas = h("canvas", { class: "stage-canvas", "aria-label": "the character" });
  // While she loads, her silhouette waits where she will stand (stage-silhouette.ts).
  const waiting = waitingSilhouette(presetId, box);
  let note: HTMLElement = waiting.el;
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
  // The load's steps as performance marks (bench/load.ts reads them; docs/avatar.md "Loading").
  const mark = (step: string) => performance.mark(`yui:stage:${step}`);
  mark("mount");
  (async () => {
    try {
      const [{ createStage }, { createCueScheduler }, { shareFace }] = await Promise.all([
        import("../avatar/stage.ts"),
        import("../avatar/cues.ts"),
        import("./stage-face.ts"),
      ]);
      if (disposed) return;
      mark("module");
      const stage = createStage(canvas, { framing: "full" });
      mark("created");
      const face = bridge ? shareFace(bridge, presetId, stage) : null;
      const cues = createCueScheduler((cue) => {
        const result = stage.playCue(cue);
        face?.played(cue.emotion_id, result);
      });
      impl = {
        newReply: () => {
          cues.reset();
          face?.newReply();
        },
        cue: (offset, args) => cues.add(offset, args),
        // The reply's text or her speech goes on: her face holds.
        reveal: (p) => {
          face?.active();
          cues.reveal(p);
        },
        mouth: (w) => {
          if (Object.values(w).some((v) => (v ?? 0) > 0)) face?.active();
          stage.setMouth(w);
        },
        dispose: () => {
          face?.dispose();
          stage.dispose();
        },
        handle: stage,
      };
      for (const f of early.splice(0)) f(impl);
      // `?stage=empty`: the same stage and loop with no character in it, the peer of bench:idle.
      const st = new URLSearchParams(location.search).get("stage");
      if (st !== "empty") {
        await stage.load(`/avatar/${encodeURIComponent(presetId)}.vrm`);
      }
      mark("loaded");
      // Her first frame: her shape is kept for the next wait.
      const offFrame = stage.onFrame(() => {
        offFrame();
        mark("drawn");
        if (st !== "empty") keepSilhouette(presetId, canvas);
      });
      waiting.dispose();
      note.remove();
      setNote(null);
    } catch (e) {
      waiting.dispose();
      box.classList.add("placeholder");
      const message = `The character could not be shown here (${(e as Error).message}). Chat works as usual.`;
      const failed = h("div", { class: "stage-note" }, message);
      note.replaceWith(failed);
      note = failed;
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
      waiting.dispose();
      impl?.dispose();
    },
  };
}
