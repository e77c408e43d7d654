import type * as THREE from "three";
import type { ExpressionPlayer } from "../expression-player.ts";
import type { StageVRM as VRM } from "../vrm-types.ts";

/** A model on the stage, with its mixer, its layers of animation and its clip cache. */
export interface LoadedModel {
  vrm: VRM;
  name: string;
  mixer: THREE.AnimationMixer;
  /** Standing's idle clip (the base pose). */
  idle: THREE.AnimationAction;
  /** The layer under motions: `idle`, or her posture's clip (posture-player.ts). */
  base: THREE.AnimationAction;
  /** The base layer is held still at this time (reduced motion), or runs (null). */
  baseStill: number | null;
  expressions: ExpressionPlayer;
  clips: Map<string, THREE.AnimationClip>;
  motion: {
    id: string;
    action: THREE.AnimationAction;
    time: number;
    duration: number;
    returning: boolean;
  } | null;
  /** The hips' resting height above the floor in metres: the unit of the posture clips and the bed. */
  hipsHeight: number;
  /** The normalized hips' resting position, to which clips add their hips offsets. */
  hipsRest: THREE.Vector3;
}
