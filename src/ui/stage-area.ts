/**
 * The stage area of main's character: mounts the avatar stage (src/avatar, loaded on demand so the chat is
 * usable at once) on a canvas and plays cues as the reply's text is revealed. Falls back to a placeholder
 * when WebGL or the model is not available. With `?stage=empty` in the page's URL the stage runs with no
 * character loaded (bench/idle.ts compares the companion's idle cost against it).
 */
import { h, replace } from "./dom.ts";

/** What the panel drives. */
export interface StageHandle {
  /** A new reply starts: pending cues are dropped. */
  newReply(): void;
  /** A cue anchored at a text offset. */
  cue(offset: number, args: Record<string, unknown>): void;
  /** The text shown so far reached `position`. */
  reveal(position: number): void;
  /** Lip sync: the mouth shapes (aa, ih, ou, ee, oh) now. */
  mouth(weights: Partial<Record<"aa" | "ih" | "ou" | "ee" | "oh", number>>): void;
  dispose(): void;
}

/** Mounts the stage in `box` for a preset's model (`/avatar/<presetId>.vrm`). */
export function mountStage(box: HTMLElement, presetId: string): StageHandle {
  const canvas = h("canvas", { class: "stage-canvas", "aria-label": "the character" });
  const note = h("div", { class: "stage-note" }, "Loading the character…");
  replace(box, canvas, note);
  let disposed = false;
  let impl: StageHandle | null = null;
  const early: Array<(s: StageHandle) => void> = [];
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
      };
      for (const f of early.splice(0)) f(impl);
      (window as unknown as { __yuiStage?: unknown }).__yuiStage = stage;
      // `?stage=empty`: the same stage and loop with no character in it, the peer of bench:idle.
      if (new URLSearchParams(location.search).get("stage") !== "empty") {
        await stage.load(`/avatar/${encodeURIComponent(presetId)}.vrm`);
      }
      note.remove();
    } catch (e) {
      box.classList.add("placeholder");
      note.textContent = `The character could not be shown here (${(e as Error).message}). Chat works as usual.`;
    }
  })();
  const later = (f: (s: StageHandle) => void) => (): void => {
    if (impl) f(impl);
    else early.push(f);
  };
  return {
    newReply: () => later((s) => s.newReply())(),
    cue: (o, a) => later((s) => s.cue(o, a))(),
    reveal: (p) => later((s) => s.reveal(p))(),
    // Before the stage exists there is no mouth to move.
    mouth: (w) => impl?.mouth(w),
    dispose() {
      disposed = true;
      impl?.dispose();
    },
  };
}
