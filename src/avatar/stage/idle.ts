/**
 * Idle life (docs/avatar.md "Idle life"): breathing, a slow weight shift, natural blinking and now and then an
 * ambient motion, added on top of whatever the base layer plays.
 */
import { AMBIENT_MOTIONS } from "../motions.ts";
import type { PoseOffsets } from "./clips.ts";
import type { LoadedModel } from "./model.ts";

export interface IdleOptions {
  random: () => number;
  /** Her eyes are shut (asleep): no blinking. */
  eyesClosed: () => boolean;
  /** Whether an ambient motion may start now (she stands, nothing else plays). */
  ambientAllowed: () => boolean;
  /** Starts a motion by id. */
  startMotion: (motionId: string) => void;
}

/**
 * Seconds she stands before an ambient motion may start after a posture (a walk, a perch, the bed): arriving
 * somewhere, she does not stretch at once because the wait ran out on the way.
 */
export const AMBIENT_AFTER_POSTURE = 8;

export function createIdleLife(opts: IdleOptions) {
  const life = { t: 0, nextBlink: 2, blinkT: -1, nextAmbient: 14 };
  /** The ambient motion idle life started last (the frame policy draws it at 20 fps while it plays). */
  let ambient: LoadedModel["motion"] = null;
  return {
    /** One of idle life's ambient motions plays (not a cue's, even of the same clip). */
    ambient: (m: LoadedModel | null) => !!m?.motion && m.motion === ambient,
    /** A blink is under way (the frame policy draws it at 20 fps, LIFE_FPS). */
    blinking: () => life.blinkT >= 0,
    update(m: LoadedModel, dt: number, offsets: PoseOffsets) {
      life.t += dt;
      const t = life.t;
      const add = (bone: Parameters<PoseOffsets["add"]>[1], x: number, y: number, z: number) =>
        offsets.add(m.vrm, bone, x, y, z);
      const breath = Math.sin(t * 2 * Math.PI * 0.23);
      add("spine", breath * 0.8, 0, 0);
      add("chest", breath * 1.2, 0, 0);
      add("upperChest", breath * 0.8, 0, 0);
      const sway = Math.sin(t * 2 * Math.PI * 0.07);
      add("hips", 0, sway * 2, sway * 1.2);
      add("spine", 0, -sway, -sway * 1.5);
      add("leftUpperArm", 0, 0, breath * 1.5);
      add("rightUpperArm", 0, 0, -breath * 1.5);
      // Natural blinking: a quick close and a slower open, every 2-6 s, sometimes twice.
      if (opts.eyesClosed()) life.blinkT = -1;
      else {
        // A blink that began since the last frame has been closing for that long (at most the 0.06 s it takes
        // to close): at 10 or 20 fps its first drawn frame shows the eyes shut, not half the close skipped.
        if (life.blinkT < 0 && t >= life.nextBlink) life.blinkT = Math.min(dt, 0.06);
        else if (life.blinkT >= 0) life.blinkT += dt;
        if (life.blinkT >= 0) {
          const k = life.blinkT < 0.06 ? life.blinkT / 0.06 : Math.max(0, 1 - (life.blinkT - 0.06) / 0.1);
          m.expressions.setChannel("blink", k);
          if (life.blinkT > 0.16) {
            life.blinkT = -1;
            life.nextBlink = t + (opts.random() < 0.15 ? 0.25 : 2 + opts.random() * 4);
          }
        }
      }
      if (!opts.ambientAllowed()) life.nextAmbient = Math.max(life.nextAmbient, t + AMBIENT_AFTER_POSTURE);
      else if (!m.motion && t >= life.nextAmbient) {
        const pick = AMBIENT_MOTIONS[Math.floor(opts.random() * AMBIENT_MOTIONS.length)]!;
        opts.startMotion(pick);
        ambient = m.motion;
        life.nextAmbient = t + 18 + opts.random() * 20;
      }
    },
  };
}
export type IdleLife = ReturnType<typeof createIdleLife>;
