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
  /**
   * hipsOffset is given in units of the hips' resting height above the floor instead of metres, so a seat or a
   * bed is reached the same way by a small and a tall model (the posture clips).
   */
  hipsRelative?: boolean;
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

// ---- Posture clips: her body on the desktop (docs/body.md "In main's page") ----

/** A clip of a posture: held in a loop (sitting, walking) or played once and held at its end (lying down, waking). */
export interface PostureClip extends ProceduralClip {
  loop: boolean;
  /** Seconds into the clip of the pose shown, still, under reduced motion (a loop stands still there). */
  still: number;
}

/** The bed, in units of her hips' resting height (the lying clips put her on it): a low box with a pillow. */
export const BED = {
  /** Height of the mattress top above the floor. */
  height: 0.4,
  /** Depth (front to back) and its centre's distance behind her standing place. */
  depth: 0.9,
  z: -0.55,
  /** Length along her lying body (head to the screen's left), centred where she stands: her length and a little. */
  length: 1.9,
  /** Seconds the bed takes to appear and to fade. */
  fadeIn: 1,
  fadeOut: 0.8,
} as const;

/** The same keys at the start and the end of a loop of `d` seconds (a held pose). */
const hold = (d: number, pose: Deg3): Array<Key<Deg3>> => [
  [0, pose],
  [d, pose],
];
/** A two-beat loop of `d` seconds: `a`, `b` half way, `a` again. */
const cycle = (d: number, a: Deg3, b: Deg3): Array<Key<Deg3>> => [
  [0, a],
  [d / 2, b],
  [d, a],
];
/**
 * Where her seat is when she sits, as a share of her window's height above its bottom: the host hangs her window
 * that much lower while she sits (SIT_DROP in host/desktop/body.ts), so the edge she sits on is under her seat.
 */
export const SIT_SEAT = 0.3;
// The hips' drop that puts the seat there on a model framed whole (stage/framing.ts: the window shows 1.08 of
// her height, about 1.9 hips' heights): the seat 0.28 of her height above her feet, the hips a thigh's
// thickness above it.
const SIT_HIPS = -0.39;
// Where she lies on the bed (hips offset, relative): above the mattress, over its depth.
const ON_BED: Deg3 = [0, BED.height + 0.12 - 1, BED.z];
const LYING_HIPS: Deg3 = [0, 0, 90];
// Lying on her right side, her left arm rests along her body; her right arm, under her, lies forward on the
// mattress toward her knees (not down into it).
const LYING_LEFT_ARM: Deg3 = [0, -6, -86];
const LYING_RIGHT_ARM: Deg3 = [-60, 0, 90];
const SEATED_ON_BED: Deg3 = [0, BED.height + 0.05 - 1, BED.z + 0.25];

const LIE_DOWN_S = 4;
const WAKE_S = 22;

/** The walking cycle facing the viewer; walk_left and walk_right turn it sideways (turned()). */
const WALK: PostureClip = {
  duration: 1,
  loop: true,
  still: 0.25,
  hipsRelative: true,
  bones: {
    hips: hold(1, [0, 0, 0]),
    leftUpperLeg: cycle(1, [-28, 0, 1.5], [22, 0, 1.5]),
    rightUpperLeg: cycle(1, [22, 0, -1.5], [-28, 0, -1.5]),
    leftLowerLeg: [
      [0, [8, 0, 0]],
      [0.25, [10, 0, 0]],
      [0.5, [20, 0, 0]],
      [0.75, [55, 0, 0]],
      [1, [8, 0, 0]],
    ],
    rightLowerLeg: [
      [0, [20, 0, 0]],
      [0.25, [55, 0, 0]],
      [0.5, [8, 0, 0]],
      [0.75, [10, 0, 0]],
      [1, [20, 0, 0]],
    ],
    leftUpperArm: cycle(1, [18, -6, -70], [-18, -6, -70]),
    rightUpperArm: cycle(1, [-18, 6, 70], [18, 6, 70]),
    spine: cycle(1, [4, 4, 0], [4, -4, 0]),
  },
  hipsOffset: [
    [0, [0, -0.02, 0]],
    [0.25, [0, 0, 0]],
    [0.5, [0, -0.02, 0]],
    [0.75, [0, 0, 0]],
    [1, [0, -0.02, 0]],
  ],
};

/** Leaning out to the screen's left (her right) around a window's edge, a hand on it; peek_right mirrors it. */
const PEEK_LEFT: PostureClip = {
  duration: 3,
  loop: true,
  still: 1.5,
  hipsRelative: true,
  bones: {
    spine: cycle(3, [0, 0, 10], [0, 0, 15]),
    chest: cycle(3, [0, 0, 8], [0, 0, 12]),
    neck: hold(3, [0, 0, 6]),
    head: cycle(3, [0, -8, 8], [0, -12, 10]),
    // Her left hand (the screen's right, the window's side) holds the window's edge at her window's border; her right
    // arm hangs relaxed (the lean already tilts her shoulders, so the base pose's 70° hangs it straight down).
    leftUpperArm: hold(3, [0, -6, -54]),
    leftLowerArm: hold(3, [0, -8, 0]),
    rightUpperArm: hold(3, [0, 6, 68]),
    rightLowerArm: hold(3, [0, 10, 0]),
  },
  // Her feet a step nearer the window, so that her hand reaches its edge while she leans away from it.
  hipsOffset: cycle(3, [0.08, 0, 0], [0.07, 0, 0]),
};

/**
 * Hand over hand up (or down), legs stepping in turn, facing the viewer; `climb` turns it to face the window she
 * climbs (her back to the viewer, hands and knees toward the screen).
 */
const CLIMB: PostureClip = {
  duration: 1.2,
  loop: true,
  still: 0.3,
  hipsRelative: true,
  bones: {
    leftUpperArm: cycle(1.2, [-20, 0, 60], [-20, 0, 5]),
    rightUpperArm: cycle(1.2, [-20, 0, -5], [-20, 0, -60]),
    leftLowerArm: cycle(1.2, [0, -10, 0], [0, -60, 0]),
    rightLowerArm: cycle(1.2, [0, 60, 0], [0, 10, 0]),
    leftUpperLeg: cycle(1.2, [0, 0, 1.5], [-50, 0, 1.5]),
    rightUpperLeg: cycle(1.2, [-50, 0, -1.5], [0, 0, -1.5]),
    leftLowerLeg: cycle(1.2, [5, 0, 0], [75, 0, 0]),
    rightLowerLeg: cycle(1.2, [75, 0, 0], [5, 0, 0]),
    head: hold(1.2, [-12, 0, 0]),
  },
  hipsOffset: cycle(1.2, [0, 0, 0], [0, 0.03, 0]),
};

/** Her clip of each posture, by clip id (postureClipId() in posture.ts picks one from the body's event). */
export const POSTURE_CLIPS: Readonly<Record<string, PostureClip>> = {
  walk: WALK,
  walk_left: turned(WALK, -75),
  walk_right: turned(WALK, 75),
  climb: turned(CLIMB, 180),
  /**
   * Sitting on an edge: thighs forward, lower legs hanging over it and swinging a little, hands on the edge
   * beside her. Her seat is 30 % of the window's height above its bottom (SIT_SEAT), where the host puts the edge.
   */
  sit: {
    duration: 4,
    loop: true,
    still: 0,
    hipsRelative: true,
    bones: {
      leftUpperLeg: hold(4, [-88, 0, 4]),
      rightUpperLeg: hold(4, [-88, 0, -4]),
      leftLowerLeg: cycle(4, [70, 0, 0], [95, 0, 0]),
      rightLowerLeg: cycle(4, [95, 0, 0], [70, 0, 0]),
      // Upper arms hanging by her sides, elbows bent a little forward: her hands rest on the edge beside her hips.
      leftUpperArm: hold(4, [-4, -4, -80]),
      rightUpperArm: hold(4, [-4, 4, 80]),
      leftLowerArm: hold(4, [0, -38, 0]),
      rightLowerArm: hold(4, [0, 38, 0]),
      spine: hold(4, [-3, 0, 0]),
    },
    hipsOffset: hold(4, [0, SIT_HIPS, 0]),
  },
  peek_left: PEEK_LEFT,
  peek_right: mirrored(PEEK_LEFT),
  /** Held up by the user's hand: legs dangling and swinging, arms loose. */
  dangle: {
    duration: 1.6,
    loop: true,
    still: 0,
    bones: {
      leftUpperLeg: cycle(1.6, [-14, 0, 3], [6, 0, 3]),
      rightUpperLeg: cycle(1.6, [6, 0, -3], [-14, 0, -3]),
      leftLowerLeg: cycle(1.6, [25, 0, 0], [10, 0, 0]),
      rightLowerLeg: cycle(1.6, [10, 0, 0], [25, 0, 0]),
      leftUpperArm: cycle(1.6, [-10, -6, -45], [10, -6, -50]),
      rightUpperArm: cycle(1.6, [10, 6, 45], [-10, 6, 50]),
      head: hold(1.6, [8, 0, 6]),
    },
  },
  /**
   * Her landing after a fall (the body's `fall: "landing"`): knees give, arms out for balance, and up again. While
   * she falls she dangles (the dangle clip).
   */
  land: {
    duration: 0.3,
    loop: false,
    still: 0.12,
    hipsRelative: true,
    bones: {
      leftUpperLeg: [
        [0.12, [-45, 0, 3]],
        [0.3, [0, 0, 0]],
      ],
      rightUpperLeg: [
        [0.12, [-45, 0, -3]],
        [0.3, [0, 0, 0]],
      ],
      leftLowerLeg: [
        [0.12, [75, 0, 0]],
        [0.3, [0, 0, 0]],
      ],
      rightLowerLeg: [
        [0.12, [75, 0, 0]],
        [0.3, [0, 0, 0]],
      ],
      leftUpperArm: [[0.12, [0, -6, -40]]],
      rightUpperArm: [[0.12, [0, 6, 40]]],
      spine: [[0.12, [12, 0, 0]]],
    },
    hipsOffset: [
      [0.12, [0, -0.16, 0]],
      [0.3, [0, 0, 0]],
    ],
  },
  /** From standing onto the bed behind her: sits on its edge, then lies down on her side. Ends lying. */
  lie_down: {
    duration: LIE_DOWN_S,
    loop: false,
    still: LIE_DOWN_S,
    hipsRelative: true,
    bones: {
      hips: [
        [1.4, [0, 0, 0]],
        [2.8, LYING_HIPS],
        [LIE_DOWN_S, LYING_HIPS],
      ],
      leftUpperLeg: [
        [1.4, [-80, 0, 4]],
        [2.8, [-40, 0, 0]],
        [LIE_DOWN_S, [-35, 0, 0]],
      ],
      rightUpperLeg: [
        [1.4, [-80, 0, -4]],
        [2.8, [-40, 0, 0]],
        [LIE_DOWN_S, [-35, 0, 0]],
      ],
      leftLowerLeg: [
        [1.4, [80, 0, 0]],
        [LIE_DOWN_S, [50, 0, 0]],
      ],
      rightLowerLeg: [
        [1.4, [80, 0, 0]],
        [LIE_DOWN_S, [50, 0, 0]],
      ],
      rightUpperArm: [
        [1.4, [-20, 10, 62]],
        [LIE_DOWN_S, LYING_RIGHT_ARM],
      ],
      leftUpperArm: [
        [2.8, [0, -6, -70]],
        [LIE_DOWN_S, LYING_LEFT_ARM],
      ],
      head: [
        [2.8, [0, 0, 0]],
        [LIE_DOWN_S, [0, 0, -20]],
      ],
    },
    hipsOffset: [
      [1.4, SEATED_ON_BED],
      [2.8, ON_BED],
      [LIE_DOWN_S, ON_BED],
    ],
  },
  /** Asleep on the bed, on her side with her knees drawn up (breathing comes from idle life). */
  sleep: {
    duration: 6,
    loop: true,
    still: 0,
    hipsRelative: true,
    bones: {
      hips: hold(6, LYING_HIPS),
      leftUpperLeg: hold(6, [-35, 0, 0]),
      rightUpperLeg: hold(6, [-35, 0, 0]),
      leftLowerLeg: hold(6, [50, 0, 0]),
      rightLowerLeg: hold(6, [50, 0, 0]),
      rightUpperArm: hold(6, LYING_RIGHT_ARM),
      leftUpperArm: hold(6, LYING_LEFT_ARM),
      chest: cycle(6, [0, 0, 0], [3, 0, 0]),
      head: hold(6, [0, 0, -20]),
    },
    hipsOffset: hold(6, ON_BED),
  },
  /** About 22 s: she sits up on the bed, rubs her eyes, stretches, stands up and looks around. Ends standing. */
  wake: {
    duration: WAKE_S,
    loop: false,
    still: WAKE_S,
    hipsRelative: true,
    bones: {
      hips: [
        [0, LYING_HIPS],
        [1, LYING_HIPS],
        [3.5, [0, 0, 0]],
      ],
      leftUpperLeg: [
        [0, [-35, 0, 0]],
        [3.5, [-80, 0, 4]],
        [14, [-80, 0, 4]],
        [17, [0, 0, 1.5]],
      ],
      rightUpperLeg: [
        [0, [-35, 0, 0]],
        [3.5, [-80, 0, -4]],
        [14, [-80, 0, -4]],
        [17, [0, 0, -1.5]],
      ],
      leftLowerLeg: [
        [0, [50, 0, 0]],
        [3.5, [80, 0, 0]],
        [14, [80, 0, 0]],
        [17, [0, 0, 0]],
      ],
      rightLowerLeg: [
        [0, [50, 0, 0]],
        [3.5, [80, 0, 0]],
        [14, [80, 0, 0]],
        [17, [0, 0, 0]],
      ],
      // Rubs her eyes with her right hand, then both arms up for a long stretch.
      rightUpperArm: [
        [0, LYING_RIGHT_ARM],
        [3.5, [-20, 10, 62]],
        [4.5, [-60, 40, 30]],
        [6.5, [-60, 40, 30]],
        [7.5, [-20, 10, 62]],
        [9, [0, 0, -80]],
        [12, [0, 0, -80]],
        [13.5, [0, 6, 70]],
      ],
      rightLowerArm: [
        [4.5, [0, 110, 0]],
        [6.5, [0, 110, 0]],
        [7.5, [0, 14, 0]],
      ],
      leftUpperArm: [
        [0, LYING_LEFT_ARM],
        [3.5, [0, -6, -70]],
        [7.5, [0, -6, -70]],
        [9, [0, 0, 80]],
        [12, [0, 0, 80]],
        [13.5, [0, -6, -70]],
      ],
      spine: [
        [9, [-8, 0, 0]],
        [12, [-8, 0, 0]],
        [14, [0, 0, 0]],
        [15.5, [25, 0, 0]],
        [17, [0, 0, 0]],
      ],
      head: [
        [0, [0, 0, -20]],
        [3.5, [8, 0, 0]],
        [9, [-14, 0, 0]],
        [12, [-14, 0, 0]],
        [17, [0, 0, 0]],
        [18.5, [0, 22, 0]],
        [20, [0, -18, 0]],
        [21.2, [0, 0, 0]],
      ],
    },
    hipsOffset: [
      [0, ON_BED],
      [1, ON_BED],
      [3.5, SEATED_ON_BED],
      [14, SEATED_ON_BED],
      [17, [0, 0, 0]],
    ],
  },
};
/** `clip` turned `deg` degrees about the vertical at the hips (positive: toward the screen's right). */
export function turned<C extends ProceduralClip>(clip: C, deg: number): C {
  const hips = clip.bones.hips ?? hold(clip.duration, [0, 0, 0]);
  return {
    ...clip,
    bones: { ...clip.bones, hips: hips.map(([t, [x, y, z]]) => [t, [x, y + deg, z]] as Key<Deg3>) },
  };
}

/** `clip` mirrored left for right: left and right bones swapped, rotations about Y and Z and offsets along X negated. */
export function mirrored<C extends ProceduralClip>(clip: C): C {
  const swap = (bone: string) =>
    bone.startsWith("left")
      ? `right${bone.slice(4)}`
      : bone.startsWith("right")
        ? `left${bone.slice(5)}`
        : bone;
  // 0 stays 0 (not -0), so that mirroring twice gives the clip back.
  const neg = (v: number) => (v === 0 ? 0 : -v);
  const flip = (keys: ReadonlyArray<Key<Deg3>>) =>
    keys.map(([t, [x, y, z]]) => [t, [x, neg(y), neg(z)]] as Key<Deg3>);
  return {
    ...clip,
    bones: Object.fromEntries(Object.entries(clip.bones).map(([b, keys]) => [swap(b), flip(keys!)])),
    ...(clip.hipsOffset
      ? { hipsOffset: clip.hipsOffset.map(([t, [x, y, z]]) => [t, [neg(x), y, z]] as Key<Deg3>) }
      : {}),
  };
}
