/**
 * Her doze on the stage (docs/avatar.md "Dozing"): the timer (../doze.ts) says when she dozes; this moves her
 * into the resting pose (head bowed, shoulders dropped, eyes shut) and back out with the waking motion, as small
 * rotations on top of whatever the base layer plays. Settled, she is a still frame: the frame policy draws none.
 */
import { dozeEase, dozeStep } from "../doze.ts";
import type { PoseOffsets } from "./clips.ts";
import type { LoadedModel } from "./model.ts";

export function createDozePose() {
  let target: 0 | 1 = 0;
  let level = 0;
  let reduced = false;
  // The eyes were shut by the doze: opened once when she is fully awake again.
  let eyesShut = false;
  return {
    set(dozing: boolean) {
      target = dozing ? 1 : 0;
      if (reduced) level = target;
    },
    setReduced(on: boolean) {
      reduced = on;
      if (on) level = target;
    },
    /** She dozes or is on her way to it (idle life rests: no breathing, no blinks, no ambient motion). */
    dozing: () => target === 1,
    /** She moves into the resting pose or out of it: every display frame. */
    moving: () => level !== target,
    /** Dozing and settled: nothing on her moves, the frame policy draws nothing. */
    settled: () => target === 1 && level === 1,
    level: () => level,
    update(m: LoadedModel | null, dt: number, offsets: PoseOffsets) {
      level = dozeStep(level, target, dt, reduced);
      if (!m) return;
      const k = dozeEase(level);
      if (k > 0) {
        const add = (bone: Parameters<PoseOffsets["add"]>[1], x: number, y: number, z: number) =>
          offsets.add(m.vrm, bone, x * k, y * k, z * k);
        add("head", 16, 0, 4);
        add("neck", 8, 0, 0);
        add("chest", 4, 0, 0);
        add("leftUpperArm", 0, 0, -3);
        add("rightUpperArm", 0, 0, 3);
        // Her eyes close a little ahead of her head and open a little before it is up.
        m.expressions.setChannel("blink", Math.min(1, k * 1.4));
        eyesShut = true;
      } else if (eyesShut) {
        m.expressions.setChannel("blink", 0);
        eyesShut = false;
      }
    },
  };
}
export type DozePose = ReturnType<typeof createDozePose>;
