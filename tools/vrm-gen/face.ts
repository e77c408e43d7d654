import * as THREE from "three";
import { facePoint } from "./head.ts";
import type { Influence } from "./mesh.ts";

// The face is drawn as flat layers (eye whites, irises, lashes, brows, mouth, blush) lying on the head.
// Each layer is generated from a FaceState; an expression's morph target is the difference between the
// layer generated from that expression's state and from the neutral state. Vertex counts never change.

interface EyeState {
  upH: number;
  lowH: number;
  innerY: number;
  outerY: number;
  scale: number;
  irisDx: number;
  irisDy: number;
  irisScale: number;
}
interface BrowState {
  inY: number;
  outY: number;
  arch: number;
}
interface MouthState {
  w: number;
  corner: number;
  up: number;
  low: number;
  dx: number;
}
interface FaceState {
  eye: { l: EyeState; r: EyeState };
  brow: { l: BrowState; r: BrowState };
  mouth: MouthState;
  blush: number;
}

/** Names of the face morph targets, in target order; each backs the VRM expression of the same name. */
export const FACE_MORPHS = [
  "blink",
  "blinkLeft",
  "blinkRight",
  "happy",
  "angry",
  "sad",
  "relaxed",
  "surprised",
  "shy",
  "thinking",
  "aa",
  "ih",
  "ou",
  "ee",
  "oh",
  "blush",
] as const;
export type FaceMorph = (typeof FACE_MORPHS)[number];

const NEUTRAL_EYE: EyeState = {
  upH: 0.028,
  lowH: 0.022,
  innerY: 0,
  outerY: 0.003,
  scale: 1,
  irisDx: 0,
  irisDy: 0,
  irisScale: 1,
};
const NEUTRAL_BROW: BrowState = { inY: 0, outY: -0.004, arch: 0.005 };
const NEUTRAL_MOUTH: MouthState = { w: 0.01, corner: 0.0025, up: 0, low: -0.0025, dx: 0 };

function neutral(): FaceState {
  return {
    eye: { l: { ...NEUTRAL_EYE }, r: { ...NEUTRAL_EYE } },
    brow: { l: { ...NEUTRAL_BROW }, r: { ...NEUTRAL_BROW } },
    mouth: { ...NEUTRAL_MOUTH },
    blush: 0,
  };
}

type Edit = (f: FaceState) => void;
const eyes =
  (e: Partial<EyeState>): Edit =>
  (f) => {
    Object.assign(f.eye.l, e);
    Object.assign(f.eye.r, e);
  };
const brows =
  (b: Partial<BrowState>): Edit =>
  (f) => {
    Object.assign(f.brow.l, b);
    Object.assign(f.brow.r, b);
  };
const mouth =
  (m: Partial<MouthState>): Edit =>
  (f) => {
    Object.assign(f.mouth, m);
  };
const all =
  (...edits: Edit[]): Edit =>
  (f) => {
    for (const e of edits) e(f);
  };

const CLOSED: Partial<EyeState> = { upH: -0.005, lowH: 0.005 };

/** Each morph's full-weight face state, as an edit of the neutral face. */
const MORPH_EDITS: Record<FaceMorph, Edit> = {
  blink: eyes(CLOSED),
  blinkLeft: (f) => Object.assign(f.eye.l, CLOSED),
  blinkRight: (f) => Object.assign(f.eye.r, CLOSED),
  happy: all(
    eyes({ upH: 0.011, lowH: -0.008 }),
    brows({ inY: 0.004, outY: 0, arch: 0.007 }),
    mouth({ w: 0.016, corner: 0.007, up: -0.001, low: -0.015 }),
  ),
  angry: all(
    eyes({ innerY: -0.007, outerY: 0.004, upH: 0.019, lowH: 0.02 }),
    brows({ inY: -0.012, outY: 0.004, arch: 0 }),
    mouth({ w: 0.011, corner: -0.003, up: 0.001, low: -0.0035 }),
  ),
  sad: all(
    eyes({ innerY: 0.004, outerY: -0.005, upH: 0.02, lowH: 0.021, irisDy: -0.003 }),
    brows({ inY: 0.01, outY: -0.007, arch: -0.002 }),
    mouth({ w: 0.01, corner: -0.004, up: 0.0015, low: -0.001 }),
  ),
  relaxed: all(
    eyes({ upH: 0.008, lowH: 0.016 }),
    brows({ inY: -0.002, outY: -0.004, arch: 0.004 }),
    mouth({ w: 0.012, corner: 0.004, up: 0, low: -0.002 }),
  ),
  surprised: all(
    eyes({ scale: 1.12, upH: 0.032, lowH: 0.026, irisScale: 0.82 }),
    brows({ inY: 0.012, outY: 0.01, arch: 0.008 }),
    mouth({ w: 0.008, corner: 0, up: 0.004, low: -0.014 }),
  ),
  shy: all(
    eyes({ upH: 0.02, irisDy: -0.005, irisDx: 0.004 }),
    brows({ inY: 0.006, outY: -0.003 }),
    mouth({ w: 0.007, corner: 0.001, up: 0, low: -0.002 }),
  ),
  thinking: all(
    eyes({ upH: 0.022, irisDx: 0.006, irisDy: 0.006 }),
    (f) => {
      Object.assign(f.brow.l, { inY: 0.01, outY: 0.008 });
      Object.assign(f.brow.r, { inY: -0.004, outY: -0.004 });
    },
    mouth({ w: 0.007, dx: 0.008, corner: -0.001, up: 0.0005, low: -0.002 }),
  ),
  aa: mouth({ w: 0.013, corner: 0.001, up: 0.002, low: -0.022 }),
  ih: mouth({ w: 0.016, corner: 0.002, up: 0.001, low: -0.008 }),
  ou: mouth({ w: 0.0065, corner: -0.002, up: 0.003, low: -0.011 }),
  ee: mouth({ w: 0.018, corner: 0.003, up: 0.001, low: -0.007 }),
  oh: mouth({ w: 0.01, corner: -0.002, up: 0.003, low: -0.017 }),
  blush: (f) => {
    f.blush = 1;
  },
};

/** Face materials (keys of the generator's palette). */
export type FaceMaterial =
  | "eyeWhite"
  | "iris"
  | "pupil"
  | "highlight"
  | "lash"
  | "mouth"
  | "tongue"
  | "blush"
  | "nose";

type P2 = [number, number];
interface Layer {
  material: FaceMaterial;
  lift: number;
  bone: string;
  triangles: number[];
  points: (f: FaceState) => P2[];
}

const EYE_Y = -0.015;
const EYE_X = 0.056;
const EYE_HALF_W = 0.025;
const BROW_Y = 0.04;
const MOUTH_Y = -0.085;
const COLS = 14;

function eyeFrame(e: EyeState, s: number) {
  const x = (t: number) => s * EYE_X + s * (-EYE_HALF_W + 2 * EYE_HALF_W * t) * e.scale;
  const corner = (t: number) => EYE_Y + e.innerY + (e.outerY - e.innerY) * t;
  const hump = (t: number, k: number) => Math.sin(Math.PI * t) ** k;
  const up = (t: number) => corner(t) + e.upH * e.scale * hump(t, 0.75);
  const low = (t: number) => corner(t) - e.lowH * e.scale * hump(t, 0.9);
  const clamp = ([px, py]: P2): P2 => {
    const t = THREE.MathUtils.clamp(((px - s * EYE_X) / (s * e.scale) + EYE_HALF_W) / (2 * EYE_HALF_W), 0, 1);
    const a = up(t);
    const b = low(t);
    const x0 = x(0);
    const x1 = x(1);
    return [
      THREE.MathUtils.clamp(px, Math.min(x0, x1), Math.max(x0, x1)),
      THREE.MathUtils.clamp(py, Math.min(a, b), Math.max(a, b)),
    ];
  };
  return { x, up, low, clamp };
}

function strip(cols: number): number[] {
  const tri: number[] = [];
  for (let i = 0; i < cols - 1; i++) {
    const a = 2 * i;
    tri.push(a, a + 1, a + 2, a + 2, a + 1, a + 3);
  }
  return tri;
}

function discTriangles(rings: number, segs: number): number[] {
  const tri: number[] = [];
  for (let k = 0; k < segs; k++) tri.push(0, 1 + k, 1 + ((k + 1) % segs));
  for (let r = 0; r < rings - 1; r++) {
    for (let k = 0; k < segs; k++) {
      const a = 1 + r * segs + k;
      const b = 1 + r * segs + ((k + 1) % segs);
      tri.push(a, a + segs, b, b, a + segs, b + segs);
    }
  }
  return tri;
}

function discPoints(cx: number, cy: number, rx: number, ry: number, rings: number, segs: number): P2[] {
  const pts: P2[] = [[cx, cy]];
  for (let r = 1; r <= rings; r++) {
    for (let k = 0; k < segs; k++) {
      const a = (k / segs) * Math.PI * 2;
      pts.push([cx + (Math.cos(a) * rx * r) / rings, cy + (Math.sin(a) * ry * r) / rings]);
    }
  }
  return pts;
}

function eyeLayers(side: "l" | "r"): Layer[] {
  const s = side === "l" ? 1 : -1;
  const bone = side === "l" ? "leftEye" : "rightEye";
  const frame = (f: FaceState) => eyeFrame(f.eye[side], s);
  const ts = Array.from({ length: COLS }, (_, i) => i / (COLS - 1));
  const iris = (
    f: FaceState,
    rx: number,
    ry: number,
    ox: number,
    oy: number,
    rings: number,
    segs: number,
  ) => {
    const e = f.eye[side];
    const fr = frame(f);
    const cx = s * EYE_X + e.irisDx + ox * s;
    const cy = EYE_Y + 0.002 + e.irisDy + oy;
    return discPoints(cx, cy, rx * e.irisScale * e.scale, ry * e.irisScale * e.scale, rings, segs).map(
      fr.clamp,
    );
  };
  return [
    {
      material: "eyeWhite",
      lift: 0.0012,
      bone: "head",
      triangles: strip(COLS),
      points: (f) => {
        const fr = frame(f);
        return ts.flatMap((t): P2[] => [
          [fr.x(t), fr.low(t)],
          [fr.x(t), fr.up(t)],
        ]);
      },
    },
    {
      material: "iris",
      lift: 0.002,
      bone,
      triangles: discTriangles(2, 16),
      points: (f) => iris(f, 0.0165, 0.022, 0, 0, 2, 16),
    },
    {
      material: "pupil",
      lift: 0.0026,
      bone,
      triangles: discTriangles(2, 12),
      points: (f) => iris(f, 0.0085, 0.012, 0, 0.002, 2, 12),
    },
    {
      material: "highlight",
      lift: 0.0032,
      bone,
      triangles: [...discTriangles(1, 12), ...discTriangles(1, 10).map((i) => i + 13)],
      points: (f) => [
        ...iris(f, 0.0055, 0.0065, 0.006, 0.009, 1, 12),
        ...iris(f, 0.0024, 0.0024, -0.006, -0.01, 1, 10),
      ],
    },
    {
      material: "lash",
      lift: 0.0036,
      bone: "head",
      triangles: [...strip(COLS), ...strip(6).map((i) => i + 2 * COLS)],
      points: (f) => {
        const fr = frame(f);
        const upper = ts.flatMap((t): P2[] => {
          const thick =
            0.0022 + 0.0055 * Math.sin(Math.PI * Math.min(1, t * 0.9 + 0.08)) ** 0.5 * (0.6 + 0.4 * t);
          // The outer end flicks outward and up, the usual anime lash wing.
          const wing = t > 0.85 ? ((t - 0.85) / 0.15) ** 2 : 0;
          return [
            [fr.x(t) + s * wing * 0.004, fr.up(t) + wing * 0.002],
            [fr.x(t) + s * wing * 0.006, fr.up(t) + thick + wing * 0.003],
          ];
        });
        const lower = Array.from({ length: 6 }, (_, i) => 0.55 + (0.43 * i) / 5).flatMap((t): P2[] => [
          [fr.x(t), fr.low(t) - 0.0016],
          [fr.x(t), fr.low(t)],
        ]);
        return [...upper, ...lower];
      },
    },
  ];
}

function browLayer(side: "l" | "r"): Layer {
  const s = side === "l" ? 1 : -1;
  const cols = 10;
  return {
    material: "lash",
    lift: 0.0016,
    bone: "head",
    triangles: strip(cols),
    points: (f) => {
      const b = f.brow[side];
      return Array.from({ length: cols }, (_, i) => i / (cols - 1)).flatMap((t): P2[] => {
        const x = s * (0.026 + 0.058 * t);
        const y = BROW_Y + b.inY + (b.outY - b.inY) * t + b.arch * Math.sin(Math.PI * t);
        const h = 0.0028 * (1 - 0.55 * t);
        return [
          [x, y - h],
          [x, y + h],
        ];
      });
    },
  };
}

function mouthFrame(m: MouthState) {
  const x = (t: number) => m.dx + m.w * t;
  const up = (t: number) => MOUTH_Y + m.corner * t * t + m.up * (1 - t * t);
  const low = (t: number) => MOUTH_Y + m.corner * t * t + m.low * (1 - t * t) ** 0.8;
  return { x, up, low };
}

function mouthLayers(): Layer[] {
  const cols = 17;
  const ts = Array.from({ length: cols }, (_, i) => -1 + (2 * i) / (cols - 1));
  return [
    {
      material: "mouth",
      lift: 0.0012,
      bone: "head",
      triangles: strip(cols),
      points: (f) => {
        const fr = mouthFrame(f.mouth);
        return ts.flatMap((t): P2[] => [
          [fr.x(t), fr.low(t)],
          [fr.x(t), fr.up(t)],
        ]);
      },
    },
    {
      material: "tongue",
      lift: 0.0018,
      bone: "head",
      triangles: discTriangles(2, 12),
      points: (f) => {
        const m = f.mouth;
        const fr = mouthFrame(m);
        // The tongue shows only where the mouth is open wider than a closed line.
        return discPoints(m.dx, MOUTH_Y + m.low * 0.8, m.w * 0.6, 0.007, 2, 12).map(([px, py]): P2 => {
          const t = THREE.MathUtils.clamp((px - m.dx) / m.w, -1, 1);
          const lo = fr.low(t);
          const open = Math.max(0, fr.up(t) - lo - 0.004);
          return [fr.x(t), THREE.MathUtils.clamp(py, lo, lo + open * 0.7)];
        });
      },
    },
  ];
}

function blushLayer(side: "l" | "r"): Layer {
  const s = side === "l" ? 1 : -1;
  return {
    material: "blush",
    lift: 0.0008,
    bone: "head",
    triangles: discTriangles(2, 14),
    points: (f) => discPoints(s * 0.079, -0.05, 0.019 * f.blush, 0.0085 * f.blush, 2, 14),
  };
}

/** The nose: a small soft shadow mark, as anime faces draw it. */
function noseLayer(): Layer {
  return {
    material: "nose",
    lift: 0.0006,
    bone: "head",
    triangles: discTriangles(1, 10),
    points: () => discPoints(0.003, -0.047, 0.0038, 0.0022, 1, 10),
  };
}

/** One face primitive: geometry, skinning, and one position-delta array per FACE_MORPHS entry. */
export interface FacePrimitive {
  material: FaceMaterial;
  positions: number[];
  normals: number[];
  indices: number[];
  influences: Influence[];
  targets: number[][];
}

function project(points: P2[], lift: number): { positions: number[]; normals: number[] } {
  const positions: number[] = [];
  const normals: number[] = [];
  for (const [x, y] of points) {
    const { p, n } = facePoint(x, y, lift);
    positions.push(p.x, p.y, p.z);
    normals.push(n.x, n.y, n.z);
  }
  return { positions, normals };
}

/** Builds every face layer with its morph targets, grouped into one primitive per material. */
export function buildFace(): FacePrimitive[] {
  const layers = [
    ...eyeLayers("l"),
    ...eyeLayers("r"),
    browLayer("l"),
    browLayer("r"),
    ...mouthLayers(),
    noseLayer(),
    blushLayer("l"),
    blushLayer("r"),
  ];
  const base = neutral();
  const states = FACE_MORPHS.map((name) => {
    const f = neutral();
    MORPH_EDITS[name](f);
    return f;
  });
  const byMaterial = new Map<FaceMaterial, FacePrimitive>();
  for (const layer of layers) {
    let prim = byMaterial.get(layer.material);
    if (!prim) {
      prim = {
        material: layer.material,
        positions: [],
        normals: [],
        indices: [],
        influences: [],
        targets: FACE_MORPHS.map(() => []),
      };
      byMaterial.set(layer.material, prim);
    }
    const offset = prim.positions.length / 3;
    const rest = project(layer.points(base), layer.lift);
    prim.positions.push(...rest.positions);
    prim.normals.push(...rest.normals);
    for (let i = 0; i < rest.positions.length / 3; i++) prim.influences.push([[layer.bone, 1]]);
    for (const i of layer.triangles) prim.indices.push(offset + i);
    states.forEach((state, m) => {
      const moved = project(layer.points(state), layer.lift).positions;
      const target = prim.targets[m]!;
      for (let i = 0; i < moved.length; i++) target.push(moved[i]! - rest.positions[i]!);
    });
  }
  return [...byMaterial.values()];
}
