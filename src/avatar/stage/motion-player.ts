/**
 * Motions (docs/avatar.md "Motions"): a motion's clip crossfades in over the base layer (standing's idle clip
 * or her posture's clip), plays once, and crossfades back while its last beat returns to the base pose. The base
 * layer itself changes with her posture (posture-player.ts), crossfading the same way.
 */
import * as THREE from "three";
import { PROCEDURAL_CLIPS } from "../motions.ts";
import type { StageVRMAnimation as VRMAnimation } from "../vrm-types.ts";
import { clipFor } from "./clips.ts";
import type { LoadedModel } from "./model.ts";

export interface MotionPlayerOptions {
  /** Motion id -> clip id. */
  motions: Readonly<Record<string, string>>;
  crossfade: number;
  /** VRMA clips loaded by id (loadClip). */
  files: ReadonlyMap<string, VRMAnimation>;
  /** Told of each motion that starts. */
  onStart: (motionId: string) => void;
}

export function createMotionPlayer(opts: MotionPlayerOptions) {
  const { crossfade } = opts;
  /** Fades the base layer in from its start (or its still pose); at once when `fade` is false. */
  const fadeInBase = (m: LoadedModel, fade = true) => {
    const a = m.base.reset();
    if (m.baseStill !== null) {
      a.time = m.baseStill;
      a.timeScale = 0;
    } else a.timeScale = 1;
    a.setEffectiveWeight(1);
    if (fade) a.fadeIn(crossfade);
    a.play();
  };
  return {
    /** Starts motion `motionId` on `m`; false when it has no clip. */
    start(m: LoadedModel, motionId: string): boolean {
      const clipId = opts.motions[motionId];
      const clip = clipId ? clipFor(m, clipId, PROCEDURAL_CLIPS, opts.files) : null;
      if (!clip) return false;
      if (m.motion) m.motion.action.fadeOut(crossfade);
      const action = m.mixer.clipAction(clip);
      action.reset().setLoop(THREE.LoopOnce, 1);
      action.clampWhenFinished = true;
      action.setEffectiveWeight(1).fadeIn(crossfade).play();
      m.base.fadeOut(crossfade);
      m.motion = { id: motionId, action, time: 0, duration: clip.duration, returning: false };
      opts.onStart(motionId);
      return true;
    },
    update(m: LoadedModel, dt: number) {
      const cur = m.motion;
      if (!cur) return;
      cur.time += dt;
      // Return to the base layer: crossfade out while the clip's last beat (its return to the base pose) plays.
      if (cur.time >= cur.duration - crossfade && !cur.returning) {
        cur.returning = true;
        fadeInBase(m);
        cur.action.fadeOut(crossfade);
      }
      if (cur.time >= cur.duration + crossfade) {
        cur.action.stop();
        m.motion = null;
      }
    },
    /**
     * Makes `next` the base layer, held still at `still` seconds or running (null). It crossfades in now (at
     * once without `fade`: a model just loaded), or when the motion playing returns.
     */
    setBase(m: LoadedModel, next: THREE.AnimationAction, still: number | null, fade = true) {
      const prev = m.base;
      m.base = next;
      m.baseStill = still;
      if (prev === next) {
        // Only held still or let go (reduced motion switched): no fade, no jump back to its start.
        if (still !== null) next.time = still;
        next.timeScale = still === null ? 1 : 0;
        return;
      }
      if (m.motion && !m.motion.returning) {
        // Faded out under the motion already; the new base comes in when the motion returns.
        prev.stop();
        return;
      }
      if (fade) prev.fadeOut(crossfade);
      else prev.stop();
      fadeInBase(m, fade);
    },
    /** The base layer's clip is a one-shot still fading or playing (a lie-down or wake clip counts as moving). */
    baseMoving(m: LoadedModel): boolean {
      const a = m.base;
      return a !== m.idle && a.loop === THREE.LoopOnce && a.isRunning();
    },
  };
}
export type MotionPlayer = ReturnType<typeof createMotionPlayer>;
