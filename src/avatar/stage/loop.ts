/**
 * The render loop (docs/avatar.md "Frame rate"): after every frame it asks the frame policy when to draw next,
 * the next display frame, after idle life's wait, or not until something wakes it; nothing while the page is
 * hidden or the shell says her window is covered.
 */
import { type FrameNeed, frameInterval } from "../frame-policy.ts";

export interface LoopDeps {
  /** Draws one frame of `dt` seconds. */
  step: (dt: number) => void;
  /** What she is doing now, for the frame policy. */
  need: () => FrameNeed;
  /** The stage draws by itself (false in manual mode or once disposed). */
  allowed: () => boolean;
  /** The page is hidden or her window covered. */
  hidden: () => boolean;
}

export function createLoop(deps: LoopDeps) {
  let running = false;
  let raf = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastTime = 0;

  const loop = (now: number) => {
    raf = 0;
    if (!running) return;
    // Idle frames come a tenth of a second apart; a longer gap (a stalled page) is not replayed.
    const dt = lastTime ? Math.min(0.25, (now - lastTime) / 1000) : 1 / 60;
    lastTime = now;
    deps.step(dt);
    schedule();
  };
  /** Asks the frame policy when to draw next: the next display frame, after a wait, or not until woken. */
  const schedule = () => {
    const interval = frameInterval(deps.need());
    if (interval === null) stop();
    else if (interval === 0) raf = requestAnimationFrame(loop);
    else
      timer = setTimeout(() => {
        timer = undefined;
        if (running) raf = requestAnimationFrame(loop);
      }, interval);
  };
  const start = () => {
    if (running || !deps.allowed() || deps.hidden()) return;
    running = true;
    lastTime = 0;
    raf = requestAnimationFrame(loop);
  };
  const stop = () => {
    running = false;
    cancelAnimationFrame(raf);
    raf = 0;
    clearTimeout(timer);
    timer = undefined;
  };
  return {
    start,
    stop,
    running: () => running,
    /** Something started that needs full rate: draw on the next display frame instead of after the idle wait. */
    wake() {
      if (!running) return start();
      if (timer === undefined) return;
      clearTimeout(timer);
      timer = undefined;
      raf = requestAnimationFrame(loop);
    },
    /** Hidden or shown again: stop, or start. */
    visibility() {
      if (deps.hidden()) stop();
      else start();
    },
  };
}

/** What the frame policy reads besides the model; times are performance.now() seconds. */
export function createPacing(blendSeconds: number) {
  const state = {
    occluded: false,
    dragging: false,
    mouthOpen: false,
    emotionAt: Number.NEGATIVE_INFINITY,
    pointerAt: Number.NEGATIVE_INFINITY,
    movedAt: Number.NEGATIVE_INFINITY,
    ambientAt: Number.NEGATIVE_INFINITY,
  };
  const clock = () => performance.now() / 1000;
  /** The page is hidden or her window covered. */
  const hidden = () => document.hidden || state.occluded;
  return {
    state,
    clock,
    hidden,
    /**
     * What the character is doing now: `motion` (a clip plays), `ambient` (an ambient motion plays), `blink`
     * (a blink is under way), `dozing` (she dozes, settled in her resting pose).
     */
    need(
      { motion, ambient }: { motion: boolean; ambient: boolean },
      blink: boolean,
      dozing = false,
    ): FrameNeed {
      const now = clock();
      const n: FrameNeed = {
        hidden: hidden(),
        dozing,
        motion,
        ambient,
        expression: now - state.emotionAt < blendSeconds,
        blink,
        speaking: state.mouthOpen,
        // The gaze follows the pointer at once: a moving pointer turns her head.
        dragged: state.dragging || now - state.pointerAt < 0.2,
        sinceMoved: 0,
        sinceAmbient: 0,
      };
      if (n.motion || n.dragged) state.movedAt = now;
      if (ambient) state.ambientAt = now;
      n.sinceMoved = now - state.movedAt;
      n.sinceAmbient = now - state.ambientAt;
      return n;
    },
  };
}
