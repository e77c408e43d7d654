/**
 * What the stage shows for her body's state (docs/body.md "In main's page"): the host's `yui://body` event picks
 * her posture clip (motions.ts POSTURE_CLIPS), whether the bed is there, whether her eyes are shut and how the
 * camera frames her. Pure, table-tested (posture.test.ts); the stage's posture player (stage/posture-player.ts)
 * plays the answer.
 */
import type { BodyEvent } from "../protocol/body.ts";

/** The fields of the body's event the stage plays (the presetId and occlusion are the page's). */
export type PostureState = Pick<BodyEvent, "posture" | "peek" | "bed" | "moving" | "facing" | "fall">;

/** Standing still, no bed: her idle life. */
export const STANDING: PostureState = {
  posture: "standing",
  peek: null,
  bed: null,
  moving: false,
  facing: 0,
};

export interface PostureShow {
  /** The posture clip (POSTURE_CLIPS), or null for the idle life of standing. */
  clip: string | null;
  /** The bed is there (fading in), or not (fading out). */
  bed: boolean;
  /** Asleep: eyes shut, no blinking. */
  eyesClosed: boolean;
  /** The camera frames her lying across the bed instead of standing. */
  lyingFrame: boolean;
  /** Every display frame (she travels or is dragged), not idle life's rate. */
  fullRate: boolean;
}

/** The clip and scene of a body state. The user's drag outranks the bed; the bed's phases outrank the posture. */
export function postureShow(s: PostureState): PostureShow {
  const show = (clip: string | null, more: Partial<PostureShow> = {}): PostureShow => ({
    clip,
    bed: false,
    eyesClosed: false,
    lyingFrame: false,
    fullRate: s.moving || s.posture === "dragging",
    ...more,
  });
  if (s.posture === "dragging") return show("dangle");
  switch (s.bed) {
    case "setup":
      return show(clipOf(s), { bed: true });
    case "lying_down":
      return show("lie_down", { bed: true, lyingFrame: true });
    case "asleep":
      return show("sleep", { bed: true, eyesClosed: true, lyingFrame: true });
    case "waking":
      return show("wake", { bed: true, lyingFrame: true });
    default:
      // No bed, or fading: the posture she has now (standing after the wake clip or an early stand).
      return show(clipOf(s));
  }
}

/**
 * Whether `next` shows at once instead of crossfading from `prev`: the host's bed phase moved on (asleep, waking)
 * and she is where the host says, whatever the page's clip had reached (the host's timings may be shorter than the
 * clips). Each of these clips starts where the previous one ends, so nothing jumps when the clip had finished.
 */
export function showsAtOnce(prev: PostureShow, next: PostureShow): boolean {
  return (
    (prev.clip === "lie_down" && next.clip === "sleep") || (prev.clip === "sleep" && next.clip === "wake")
  );
}

/** The clip of a posture outside the bed's phases: a fall dangles, then lands. */
function clipOf(s: PostureState): string | null {
  if (s.fall === "falling") return "dangle";
  if (s.fall === "landing") return "land";
  switch (s.posture) {
    case "walking":
      return s.facing < 0 ? "walk_left" : s.facing > 0 ? "walk_right" : "walk";
    case "climbing":
      return "climb";
    case "sitting":
      return "sit";
    case "peeking":
      return s.peek === "right" ? "peek_right" : "peek_left";
    case "dragging":
      return "dangle";
    case "lying":
      return "sleep";
    default:
      return null;
  }
}
