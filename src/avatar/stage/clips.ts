/**
 * Data clips on a model (docs/avatar.md "Motions"): a procedural clip (motions.ts) built as a three.js clip on
 * the model's normalized bones, a VRMA file clip completed with the base pose, and each model's clip cache.
 * Also the small per-frame rotations idle life and the gaze add on top of the animation.
 */
import { createVRMAnimationClip } from "@pixiv/three-vrm-animation";
import * as THREE from "three";
import { BASE_POSE, type Deg3, keysWithRest, type ProceduralClip } from "../motions.ts";
import type {
  StageVRM as VRM,
  StageVRMAnimation as VRMAnimation,
  HumanBoneName as VRMHumanBoneName,
} from "../vrm-types.ts";
import type { LoadedModel } from "./model.ts";

export const D2R = Math.PI / 180;

/**
 * A rotation of a normalized humanoid bone of `vrm`, given as Euler degrees for a model facing +Z (VRM 1.0).
 * VRM 0.x normalized bones face -Z, so the rotation is mirrored there: x and z negated, as
 * three-vrm-animation does for VRMA clips (without it a 0.x model raises its arms in the resting pose).
 */
export const quat = (vrm: VRM, [x, y, z]: Deg3): THREE.Quaternion => {
  const q = new THREE.Quaternion().setFromEuler(new THREE.Euler(x * D2R, y * D2R, z * D2R));
  return vrm.meta.metaVersion === "0" ? q.set(-q.x, q.y, -q.z, q.w) : q;
};

/**
 * Turns a data clip into a three.js clip on `vrm`'s normalized bones, holding the base pose for bones it leaves
 * alone. Hips offsets are added to `hips.rest`, the hips' resting position (default: where they are now, which is
 * rest only before any clip moved them); `hips.height` (metres) is the unit of relative offsets (`hipsRelative`).
 */
export function buildClip(
  name: string,
  data: ProceduralClip,
  vrm: VRM,
  hips: { rest?: THREE.Vector3; height?: number } = {},
): THREE.AnimationClip {
  const tracks: THREE.KeyframeTrack[] = [];
  const bones = new Set([...Object.keys(BASE_POSE), ...Object.keys(data.bones)] as VRMHumanBoneName[]);
  for (const bone of ["hips", "spine", "chest", "neck", "head"] as VRMHumanBoneName[]) bones.add(bone);
  for (const bone of bones) {
    const node = vrm.humanoid.getNormalizedBoneNode(bone);
    if (!node) continue;
    const rest = BASE_POSE[bone] ?? [0, 0, 0];
    const keys = keysWithRest(data.bones[bone], rest, data.duration);
    tracks.push(
      new THREE.QuaternionKeyframeTrack(
        `${node.name}.quaternion`,
        keys.map(([t]) => t),
        keys.flatMap(([, r]) => quat(vrm, r).toArray()),
      ),
    );
  }
  const hipsNode = vrm.humanoid.getNormalizedBoneNode("hips");
  if (hipsNode) {
    const rest = hips.rest ?? hipsNode.position.clone();
    const keys = keysWithRest(data.hipsOffset, [0, 0, 0] as Deg3, data.duration);
    // Offsets are authored for a model facing +Z; a VRM 0.x model faces -Z in its own space.
    const facing = vrm.meta.metaVersion === "0" ? -1 : 1;
    const unit = data.hipsRelative ? (hips.height ?? 1) : 1;
    tracks.push(
      new THREE.VectorKeyframeTrack(
        `${hipsNode.name}.position`,
        keys.map(([t]) => t),
        keys.flatMap(([, [x, y, z]]) => [
          rest.x + facing * x * unit,
          rest.y + y * unit,
          rest.z + facing * z * unit,
        ]),
      ),
    );
  }
  return new THREE.AnimationClip(name, data.duration, tracks);
}

/** Adds base-pose tracks to a file clip for humanoid bones it does not animate (so they never fall back to the T-pose). */
export function completeWithBase(clip: THREE.AnimationClip, vrm: VRM): THREE.AnimationClip {
  const animated = new Set(clip.tracks.map((t) => t.name));
  for (const [bone, rot] of Object.entries(BASE_POSE) as Array<[VRMHumanBoneName, Deg3]>) {
    const node = vrm.humanoid.getNormalizedBoneNode(bone);
    if (!node || animated.has(`${node.name}.quaternion`)) continue;
    clip.tracks.push(
      new THREE.QuaternionKeyframeTrack(`${node.name}.quaternion`, [0], quat(vrm, rot).toArray()),
    );
  }
  return clip;
}

/** A model's clip `clipId`, built once: a loaded VRMA file of that id, else the data clip of `table`. */
export function clipFor(
  m: LoadedModel,
  clipId: string,
  table: Readonly<Record<string, ProceduralClip>>,
  files: ReadonlyMap<string, VRMAnimation>,
): THREE.AnimationClip | null {
  const cached = m.clips.get(clipId);
  if (cached) return cached;
  const data = table[clipId];
  const file = files.get(clipId);
  const clip = file
    ? completeWithBase(createVRMAnimationClip(file, m.vrm), m.vrm)
    : data
      ? buildClip(clipId, data, m.vrm, { rest: m.hipsRest, height: m.hipsHeight })
      : null;
  if (clip) m.clips.set(clipId, clip);
  return clip;
}

/**
 * Small rotations added on top of the animation each frame (idle life, gaze). The mixer only writes a bone when
 * its animated value changes, so the pre-offset rotations are kept and put back before each update.
 */
export function createPoseOffsets() {
  const animated = new Map<THREE.Object3D, THREE.Quaternion>();
  return {
    /** Adds a rotation (Euler degrees) to `bone` of `vrm` for this frame. */
    add(vrm: VRM, bone: VRMHumanBoneName, x: number, y: number, z: number) {
      const node = vrm.humanoid.getNormalizedBoneNode(bone);
      if (!node) return;
      if (!animated.has(node)) animated.set(node, node.quaternion.clone());
      node.quaternion.multiply(quat(vrm, [x, y, z]));
    },
    /** Puts the animated rotations back (before the mixer's update). */
    restore() {
      for (const [node, q] of animated) node.quaternion.copy(q);
      animated.clear();
    },
    clear: () => animated.clear(),
  };
}
export type PoseOffsets = ReturnType<typeof createPoseOffsets>;
