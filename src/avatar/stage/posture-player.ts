/**
 * Her posture on the stage (docs/body.md "In main's page"): the body's state picks a clip (posture.ts), which
 * becomes the base layer under motions (motion-player.ts); the bed fades in and out, the camera frames her lying
 * across it, her eyes shut while she sleeps. Under reduced motion a posture still shows, as a still pose.
 */
import * as THREE from "three";
import { POSTURE_CLIPS } from "../motions.ts";
import { type PostureShow, type PostureState, postureShow, STANDING, showsAtOnce } from "../posture.ts";
import type { StageVRMAnimation as VRMAnimation } from "../vrm-types.ts";
import type { createBed } from "./bed.ts";
import { clipFor } from "./clips.ts";
import type { StageFraming } from "./framing.ts";
import type { LoadedModel } from "./model.ts";
import type { MotionPlayer } from "./motion-player.ts";

export interface PosturePlayerDeps {
  motions: MotionPlayer;
  framing: StageFraming;
  bed: ReturnType<typeof createBed>;
  /** VRMA clips loaded by id: a character's own clip of a posture id replaces the procedural one. */
  files: ReadonlyMap<string, VRMAnimation>;
}

export function createPosturePlayer(deps: PosturePlayerDeps) {
  let show: PostureShow = postureShow(STANDING);
  let reduced = false;
  let eyesShut = false;
  let applied: { model: LoadedModel; clip: string | null; still: number | null } | null = null;
  /** Something of the scene still moves on its own: the bed fading, the camera on its way. */
  let settling = false;

  const apply = (m: LoadedModel | null, fade = true) => {
    deps.bed.show(show.bed);
    deps.framing.setLying(show.lyingFrame, m?.vrm ?? null);
    if (!m) return;
    const data = show.clip ? POSTURE_CLIPS[show.clip] : undefined;
    const still = data && reduced ? data.still : null;
    // A new model starts on idle's clip, already playing: nothing to change while she stands.
    const fresh = applied?.model !== m && m.base === m.idle && show.clip === null;
    if (fresh || (applied?.model === m && applied.clip === show.clip && applied.still === still)) {
      applied = { model: m, clip: show.clip, still };
      return;
    }
    applied = { model: m, clip: show.clip, still };
    let action = m.idle;
    const clip = data && show.clip ? clipFor(m, show.clip, POSTURE_CLIPS, deps.files) : null;
    if (data && clip) {
      action = m.mixer.clipAction(clip);
      action.setLoop(data.loop ? THREE.LoopRepeat : THREE.LoopOnce, data.loop ? Number.POSITIVE_INFINITY : 1);
      action.clampWhenFinished = !data.loop;
    }
    deps.motions.setBase(m, action, still, fade);
  };

  return {
    /** The body's new state; `m` is the model shown (null before the first load). */
    set(state: PostureState, m: LoadedModel | null) {
      const prev = show;
      show = postureShow(state);
      apply(m, !showsAtOnce(prev, show));
    },
    setReduced(on: boolean, m: LoadedModel | null) {
      reduced = on;
      apply(m);
    },
    /** A new model was loaded: it takes up the posture at once. */
    loaded(m: LoadedModel) {
      applied = null;
      eyesShut = false;
      apply(m, false);
    },
    update(m: LoadedModel | null, dt: number) {
      if (m && show.eyesClosed) {
        m.expressions.setChannel("blink", 1);
        eyesShut = true;
      } else if (m && eyesShut) {
        m.expressions.setChannel("blink", 0);
        eyesShut = false;
      }
      const fading = deps.bed.step(dt, m?.hipsHeight ?? null);
      const camera = deps.framing.step(dt);
      settling = fading || camera;
    },
    /** What is shown now. */
    show: () => show,
    /** For inspect(): the posture's clip and the bed's opacity. */
    inspect: () => ({ posture: show.clip, bed: deps.bed.opacity() }),
    /** She stands with no bed: idle life's ambient motions and the click's reaction may play. */
    standing: () => show.clip === null && !show.bed,
    /** Every display frame: she travels or is dragged, a one-shot posture clip plays, the scene settles. */
    fullRate: (m: LoadedModel | null) => show.fullRate || settling || (!!m && deps.motions.baseMoving(m)),
  };
}
export type PosturePlayer = ReturnType<typeof createPosturePlayer>;
