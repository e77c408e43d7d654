// The stage's frame policy: how often to draw, from what the character is doing. Pure, table-tested; the
// render loop in stage.ts asks it after every frame (docs/avatar.md, "Frame rate").

/** What the loop knows about the character right now. */
export interface FrameNeed {
  /** The page is hidden (document.hidden) or the shell says her window is hidden or fully covered. */
  hidden: boolean;
  /** She dozes and has settled into her resting pose (docs/avatar.md "Dozing"): a still frame costs nothing. */
  dozing: boolean;
  /** A motion or gesture clip plays (not an ambient one), or fades back to idle. */
  motion: boolean;
  /** An ambient motion (idle life: a stretch, a look around) plays, or fades back to idle. */
  ambient: boolean;
  /** An emotion's expression weights are still blending in or out. */
  expression: boolean;
  /** A blink is under way (a sixth of a second: too short for 10 fps to show). */
  blink: boolean;
  /** The mouth is open (lip sync: a mouth weight is above zero). */
  speaking: boolean;
  /** She is being dragged, or the pointer just moved her gaze. */
  dragged: boolean;
  /**
   * Seconds since her body last moved (a motion or a drag ended): hair and clothes (spring bones) still
   * swing for a while. A blink, an expression or the mouth moves no spring bone.
   */
  sinceMoved: number;
  /** Seconds since an ambient motion last played: her hair still swings after it, drawn at the life rate. */
  sinceAmbient: number;
}

/** Idle life (breathing, weight shift) is drawn at this rate: 10 fps. */
export const IDLE_FPS = 10;
/** Milliseconds between idle frames. */
export const IDLE_INTERVAL_MS = 1000 / IDLE_FPS;
/**
 * Idle life that moves more than breathing (an ambient motion, a blink, hair settling after an ambient motion)
 * is drawn at this rate: 20 fps. These come every few seconds while she idles; at every display frame they
 * raised her idle cost by half or more (docs/avatar.md, "Frame rate").
 */
export const LIFE_FPS = 20;
/** Milliseconds between frames of livelier idle life. */
export const LIFE_INTERVAL_MS = 1000 / LIFE_FPS;
/** Seconds of full rate kept after a motion or a drag ends, while hair and clothes (spring bones) come to rest. */
export const SETTLE_SECONDS = 2;

/**
 * Milliseconds to wait before the next frame: 0 for every display frame (requestAnimationFrame),
 * LIFE_INTERVAL_MS for an ambient motion or a blink, IDLE_INTERVAL_MS for breathing alone, null for no
 * frame at all until something changes (hidden, or dozing: once her hair has come to rest after she settled,
 * a dozing stage draws nothing until she wakes, whatever else is set).
 */
export function frameInterval(need: FrameNeed): number | null {
  if (need.hidden) return null;
  if (need.dozing) return need.sinceMoved < SETTLE_SECONDS ? 0 : null;
  if (need.motion || need.expression || need.speaking || need.dragged) return 0;
  if (need.sinceMoved < SETTLE_SECONDS) return 0;
  if (need.ambient || need.blink || need.sinceAmbient < SETTLE_SECONDS) return LIFE_INTERVAL_MS;
  return IDLE_INTERVAL_MS;
}
