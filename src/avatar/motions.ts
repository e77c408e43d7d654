import type { HumanBoneName as VRMHumanBoneName } from "./vrm-types.ts";

// Procedural motion clips as data. Rotations are Euler degrees (XYZ) of VRM *normalized* humanoid
// bones, so a clip plays the same on every model: in the rest T-pose every bone is identity, +X is the
// character's left, +Y up, +Z forward. The left arm lies along +X, so rotating it about Z by a negative
// angle lowers it; the right arm mirrors that.

/** Euler rotation in degrees (XYZ order). */
export type Deg3 = readonly [number, number, number];
/** A keyframe: time in seconds and the value at that time. */
export type Key<T> = readonly [number, T];

/** A motion clip defined as data: per-bone rotation keys and optional hips offset keys (metres). */
export interface ProceduralClip {
  duration: number;
  bones: Partial<Record<VRMHumanBoneName, ReadonlyArray<Key<Deg3>>>>;
  hipsOffset?: ReadonlyArray<Key<Deg3>>;
}

/** The stance every clip starts from and returns to: arms relaxed at the sides (not the T-pose). */
export const BASE_POSE: Partial<Record<VRMHumanBoneName, Deg3>> = {
  leftUpperArm: [0, -6, -70],
  rightUpperArm: [0, 6, 70],
  leftLowerArm: [0, -14, 0],
  rightLowerArm: [0, 14, 0],
  leftHand: [0, 0, -6],
  rightHand: [0, 0, 6],
  leftShoulder: [0, 0, -4],
  rightShoulder: [0, 0, 4],
  leftUpperLeg: [0, 0, 1.5],
  rightUpperLeg: [0, 0, -1.5],
};

/** The default procedural clips, keyed by clip id (the vocabulary's `clip` of each motion entry). */
export const PROCEDURAL_CLIPS: Readonly<Record<string, ProceduralClip>> = {
  wave: {
    duration: 2.2,
    bones: {
      rightUpperArm: [
        [0.35, [0, 10, -25]],
        [1.85, [0, 10, -25]],
      ],
      rightLowerArm: [
        [0.35, [0, 0, -85]],
        [0.6, [0, 0, -60]],
        [0.85, [0, 0, -100]],
        [1.1, [0, 0, -60]],
        [1.35, [0, 0, -100]],
        [1.6, [0, 0, -70]],
        [1.85, [0, 0, -85]],
      ],
      head: [
        [0.4, [0, 0, -6]],
        [1.8, [0, 0, -6]],
      ],
    },
  },
  nod: {
    duration: 1.1,
    bones: {
      head: [
        [0.25, [16, 0, 0]],
        [0.5, [0, 0, 0]],
        [0.75, [12, 0, 0]],
      ],
      neck: [
        [0.25, [6, 0, 0]],
        [0.5, [0, 0, 0]],
        [0.75, [4, 0, 0]],
      ],
    },
  },
  shake_head: {
    duration: 1.3,
    bones: {
      head: [
        [0.2, [0, 20, 0]],
        [0.45, [0, -20, 0]],
        [0.7, [0, 16, 0]],
        [0.95, [0, -10, 0]],
      ],
    },
  },
  bow: {
    duration: 2.2,
    bones: {
      spine: [
        [0.6, [22, 0, 0]],
        [1.3, [22, 0, 0]],
      ],
      chest: [
        [0.6, [12, 0, 0]],
        [1.3, [12, 0, 0]],
      ],
      head: [
        [0.6, [10, 0, 0]],
        [1.3, [10, 0, 0]],
      ],
      leftUpperArm: [
        [0.6, [0, -20, -76]],
        [1.3, [0, -20, -76]],
      ],
      rightUpperArm: [
        [0.6, [0, 20, 76]],
        [1.3, [0, 20, 76]],
      ],
    },
  },
  tilt_head: {
    duration: 1.8,
    bones: {
      head: [
        [0.4, [0, 6, 14]],
        [1.3, [0, 6, 14]],
      ],
      neck: [
        [0.4, [0, 0, 5]],
        [1.3, [0, 0, 5]],
      ],
    },
  },
  cheer: {
    duration: 1.8,
    bones: {
      leftUpperArm: [
        [0.3, [0, 0, 55]],
        [0.6, [0, 0, 40]],
        [0.9, [0, 0, 60]],
        [1.3, [0, 0, 55]],
      ],
      rightUpperArm: [
        [0.3, [0, 0, -55]],
        [0.6, [0, 0, -40]],
        [0.9, [0, 0, -60]],
        [1.3, [0, 0, -55]],
      ],
      leftLowerArm: [[0.3, [0, 0, 15]]],
      rightLowerArm: [[0.3, [0, 0, -15]]],
      spine: [[0.3, [-5, 0, 0]]],
      head: [[0.3, [-8, 0, 0]]],
    },
    hipsOffset: [
      [0.3, [0, 0.04, 0]],
      [0.6, [0, 0, 0]],
      [0.9, [0, 0.04, 0]],
      [1.2, [0, 0, 0]],
    ],
  },
  think: {
    duration: 2.6,
    bones: {
      rightUpperArm: [
        [0.5, [0, 45, 62]],
        [2.1, [0, 45, 62]],
      ],
      rightLowerArm: [
        [0.5, [0, 120, 0]],
        [2.1, [0, 120, 0]],
      ],
      leftUpperArm: [
        [0.5, [0, -30, -72]],
        [2.1, [0, -30, -72]],
      ],
      leftLowerArm: [
        [0.5, [0, -85, 0]],
        [2.1, [0, -85, 0]],
      ],
      head: [
        [0.5, [-6, 8, 8]],
        [2.1, [-6, 8, 8]],
      ],
    },
  },
  shrug: {
    duration: 1.7,
    bones: {
      leftShoulder: [
        [0.4, [0, 0, 12]],
        [1.1, [0, 0, 12]],
      ],
      rightShoulder: [
        [0.4, [0, 0, -12]],
        [1.1, [0, 0, -12]],
      ],
      leftUpperArm: [
        [0.4, [0, -25, -62]],
        [1.1, [0, -25, -62]],
      ],
      rightUpperArm: [
        [0.4, [0, 25, 62]],
        [1.1, [0, 25, 62]],
      ],
      leftLowerArm: [
        [0.4, [-40, -70, 0]],
        [1.1, [-40, -70, 0]],
      ],
      rightLowerArm: [
        [0.4, [-40, 70, 0]],
        [1.1, [-40, 70, 0]],
      ],
      head: [
        [0.4, [0, 0, 9]],
        [1.1, [0, 0, 9]],
      ],
    },
  },
  surprised_jump: {
    duration: 1.3,
    bones: {
      spine: [[0.25, [-8, 0, 0]]],
      leftUpperArm: [
        [0.25, [0, -30, -35]],
        [0.8, [0, -30, -45]],
      ],
      rightUpperArm: [
        [0.25, [0, 30, 35]],
        [0.8, [0, 30, 45]],
      ],
      leftLowerArm: [[0.25, [0, -60, 0]]],
      rightLowerArm: [[0.25, [0, 60, 0]]],
      head: [[0.25, [-6, 0, 0]]],
    },
    hipsOffset: [
      [0.2, [0, 0.07, 0]],
      [0.45, [0, 0, 0]],
    ],
  },
  poke_reaction: {
    duration: 1.0,
    bones: {
      spine: [[0.15, [-10, 8, 0]]],
      head: [[0.15, [-4, -10, -10]]],
      leftUpperArm: [[0.15, [0, -35, -55]]],
      rightUpperArm: [[0.15, [0, 35, 55]]],
      leftLowerArm: [[0.15, [0, -50, 0]]],
      rightLowerArm: [[0.15, [0, 50, 0]]],
    },
    hipsOffset: [[0.15, [0, 0.015, -0.02]]],
  },
  idle_stretch: {
    duration: 3.2,
    bones: {
      leftUpperArm: [
        [0.9, [0, 0, 78]],
        [2.1, [0, 0, 78]],
      ],
      rightUpperArm: [
        [0.9, [0, 0, -78]],
        [2.1, [0, 0, -78]],
      ],
      leftLowerArm: [[0.9, [0, -10, 10]]],
      rightLowerArm: [[0.9, [0, 10, -10]]],
      spine: [
        [0.9, [-6, 0, 0]],
        [1.5, [-6, 0, 5]],
        [2.1, [-6, 0, -5]],
      ],
      head: [[0.9, [-10, 0, 0]]],
    },
  },
  idle_look_around: {
    duration: 3.4,
    bones: {
      head: [
        [0.7, [0, 24, 0]],
        [1.5, [0, 24, 0]],
        [2.2, [4, -22, 0]],
        [2.8, [4, -22, 0]],
      ],
      neck: [
        [0.7, [0, 8, 0]],
        [1.5, [0, 8, 0]],
        [2.2, [0, -8, 0]],
        [2.8, [0, -8, 0]],
      ],
      spine: [
        [0.7, [0, 5, 0]],
        [2.2, [0, -5, 0]],
      ],
    },
  },
};

/** Default motion id -> clip id (the vocabulary's motion entries carry the same as `clip`). */
export const DEFAULT_MOTIONS: Readonly<Record<string, string>> = {
  wave: "wave",
  nod: "nod",
  shake_head: "shake_head",
  bow: "bow",
  tilt_head: "tilt_head",
  cheer: "cheer",
  think: "think",
  shrug: "shrug",
  surprised_jump: "surprised_jump",
  poke_reaction: "poke_reaction",
  idle_stretch: "idle_stretch",
  idle_look_around: "idle_look_around",
};

/** Motion ids the stage plays by itself now and then while nothing else is playing. */
export const AMBIENT_MOTIONS = ["idle_stretch", "idle_look_around"] as const;

/** Keys of one bone with the base pose added at the start and end, so every clip leaves and returns to idle. */
export function keysWithRest<T>(
  keys: ReadonlyArray<Key<T>> | undefined,
  rest: T,
  duration: number,
): Array<Key<T>> {
  const out: Array<Key<T>> = [...(keys ?? [])].sort((a, b) => a[0] - b[0]);
  if (out.length === 0 || out[0]![0] > 0) out.unshift([0, rest]);
  if (out[out.length - 1]![0] < duration) out.push([duration, rest]);
  return out;
}
