import * as THREE from "three";
import { buildFace, type FACE_MORPHS, type FaceMaterial, type FacePrimitive } from "./face.ts";
import { facePoint, HEAD_CENTRE, headGeometry } from "./head.ts";
import {
  alongAxis,
  appendGeometry,
  emptyMesh,
  type Influence,
  type MeshData,
  rigid,
  type SkinFn,
  type StrandPoint,
  strandGeometry,
} from "./mesh.ts";

// "Yui", the default character: proportions, skeleton, body parts, palette, expressions and spring bones.
// Everything is in the VRM 1.0 rest pose: T-pose, facing +Z, metres, no bone rotations.

/** A skeleton joint: world rest position, parent, and the humanoid bone it is (if any). */
export interface BoneDef {
  name: string;
  parent: string | null;
  pos: [number, number, number];
  humanoid: boolean;
}

const V = (x: number, y: number, z: number): [number, number, number] => [x, y, z];

function limbBones(side: "left" | "right"): BoneDef[] {
  const s = side === "left" ? 1 : -1;
  const b = (name: string, parent: string, pos: [number, number, number]): BoneDef => ({
    name: `${side}${name}`,
    parent,
    pos,
    humanoid: true,
  });
  return [
    b("Shoulder", "upperChest", V(s * 0.03, 1.075, 0)),
    b("UpperArm", `${side}Shoulder`, V(s * 0.115, 1.07, 0)),
    b("LowerArm", `${side}UpperArm`, V(s * 0.33, 1.07, 0)),
    b("Hand", `${side}LowerArm`, V(s * 0.53, 1.07, 0)),
    b("UpperLeg", "hips", V(s * 0.075, 0.75, 0)),
    b("LowerLeg", `${side}UpperLeg`, V(s * 0.075, 0.42, 0)),
    b("Foot", `${side}LowerLeg`, V(s * 0.075, 0.075, 0)),
    b("Toes", `${side}Foot`, V(s * 0.075, 0.02, 0.08)),
    b("Eye", "head", V(s * 0.056, HEAD_CENTRE.y - 0.015, 0.08)),
  ];
}

/** A spring-bone chain: name, joint positions (the first hangs off `parent`), and its physics. */
export interface SpringChain {
  name: string;
  parent: string;
  points: Array<[number, number, number]>;
  stiffness: number;
  gravityPower: number;
  dragForce: number;
  hitRadius: number;
}

const AHOGE: SpringChain = {
  name: "ahoge",
  parent: "head",
  points: [V(0, 1.452, 0.02), V(0, 1.5, 0.05), V(0.014, 1.518, 0.095), V(0.032, 1.5, 0.12)],
  stiffness: 2.5,
  gravityPower: 0,
  dragForce: 0.5,
  hitRadius: 0.01,
};

const TWIN_TAILS: SpringChain[] = (["L", "R"] as const).map((side) => {
  const s = side === "L" ? 1 : -1;
  return {
    name: `tail${side}`,
    parent: "head",
    points: [
      V(s * 0.15, 1.37, -0.07),
      V(s * 0.2, 1.28, -0.11),
      V(s * 0.225, 1.16, -0.125),
      V(s * 0.225, 1.04, -0.115),
      V(s * 0.212, 0.92, -0.095),
    ],
    stiffness: 0.9,
    gravityPower: 0.3,
    dragForce: 0.35,
    hitRadius: 0.035,
  };
});

/** One tail tied high at the back of the head, hanging past the shoulder blades. */
const PONYTAIL: SpringChain = {
  name: "tailC",
  parent: "head",
  points: [V(0, 1.42, -0.15), V(0, 1.36, -0.215), V(0, 1.25, -0.235), V(0, 1.13, -0.215), V(0, 1.0, -0.19)],
  stiffness: 0.9,
  gravityPower: 0.3,
  dragForce: 0.35,
  hitRadius: 0.04,
};

/** The hairstyles of the generated characters: which spring locks she has and how long the back hair falls. */
export const HAIRSTYLES = {
  twintails: { chains: [AHOGE, ...TWIN_TAILS], backLength: 0.25, bangs: 11 },
  ponytail: { chains: [AHOGE, PONYTAIL], backLength: 0.16, bangs: 9 },
  bob: { chains: [AHOGE], backLength: 0.13, bangs: 13 },
  long: { chains: [AHOGE], backLength: 0.42, bangs: 11 },
} as const satisfies Record<string, { chains: SpringChain[]; backLength: number; bangs: number }>;
export type Hairstyle = keyof typeof HAIRSTYLES;

/** The default character's spring-bone chains (her twin tails and ahoge). */
export const SPRING_CHAINS: SpringChain[] = HAIRSTYLES.twintails.chains;

/** The skeleton with a hairstyle's spring chains, parents before children. */
export function bonesOf(chains: readonly SpringChain[]): BoneDef[] {
  return [
    { name: "hips", parent: null, pos: V(0, 0.8, 0), humanoid: true },
    { name: "spine", parent: "hips", pos: V(0, 0.88, 0), humanoid: true },
    { name: "chest", parent: "spine", pos: V(0, 0.96, 0), humanoid: true },
    { name: "upperChest", parent: "chest", pos: V(0, 1.03, 0), humanoid: true },
    { name: "neck", parent: "upperChest", pos: V(0, 1.1, 0), humanoid: true },
    { name: "head", parent: "neck", pos: V(0, 1.18, 0), humanoid: true },
    ...limbBones("left"),
    ...limbBones("right"),
    ...chains.flatMap((chain) =>
      chain.points.map(
        (pos, i): BoneDef => ({
          name: `hair_${chain.name}_${i}`,
          parent: i === 0 ? chain.parent : `hair_${chain.name}_${i - 1}`,
          pos,
          humanoid: false,
        }),
      ),
    ),
  ];
}

/** The default character's whole skeleton, parents before children (every variant has the same humanoid). */
export const BONES: BoneDef[] = bonesOf(SPRING_CHAINS);

/** Spring-bone colliders: the node they ride on, sphere offset (local) and radius. */
export const COLLIDERS = [
  { bone: "head", offset: V(0, 0.11, 0), radius: 0.155 },
  { bone: "upperChest", offset: V(0, 0.01, -0.02), radius: 0.1 },
  { bone: "leftUpperArm", offset: V(0.05, 0, 0), radius: 0.045 },
  { bone: "rightUpperArm", offset: V(-0.05, 0, 0), radius: 0.045 },
];

/** Body materials (keys of the palette); face materials come from face.ts. */
export type BodyMaterial = "skin" | "hairCap" | "hair" | "blouse" | "accent" | "ribbon" | "sock" | "shoe";
export type MaterialKey = BodyMaterial | FaceMaterial;

/** A material's look: sRGB base and shade colours, outline width in metres (0 for none), alpha. */
export interface Look {
  base: string;
  shade: string;
  outline: number;
  outlineColor?: string;
  rim?: number;
  alpha?: number;
  doubleSided?: boolean;
}

/** The palette: a violet-haired girl in a white blouse with a teal sailor collar and skirt. */
export const PALETTE: Record<MaterialKey, Look> = {
  skin: { base: "#fcdccb", shade: "#eba893", outline: 0, outlineColor: "#8a5a50", rim: 0.12 },
  // The cap and the back locks (behind the head, seen from the front only at their edges) have no outline:
  // the bangs', ahoge's and twin tails' outlines draw the hair's lines.
  hairCap: { base: "#4a3c80", shade: "#2a2152", outline: 0, rim: 0.2 },
  hair: { base: "#5a4a92", shade: "#32285e", outline: 0.0016, outlineColor: "#1e173c", rim: 0.25 },
  blouse: { base: "#fbfbff", shade: "#c9cfe6", outline: 0, outlineColor: "#5a6080", rim: 0.1 },
  accent: { base: "#2c7f90", shade: "#194b58", outline: 0, outlineColor: "#0e2a32" },
  ribbon: { base: "#ff6b7d", shade: "#cc4458", outline: 0, outlineColor: "#6a1e2a" },
  sock: { base: "#2d2f48", shade: "#1a1b2c", outline: 0, outlineColor: "#0c0c16" },
  shoe: { base: "#7a4a38", shade: "#4a2a20", outline: 0, outlineColor: "#2a1610" },
  eyeWhite: { base: "#ffffff", shade: "#ffffff", outline: 0, doubleSided: true },
  iris: { base: "#30b3c4", shade: "#30b3c4", outline: 0, doubleSided: true },
  pupil: { base: "#123c4c", shade: "#123c4c", outline: 0, doubleSided: true },
  highlight: { base: "#ffffff", shade: "#ffffff", outline: 0, doubleSided: true },
  lash: { base: "#2a1c34", shade: "#2a1c34", outline: 0, doubleSided: true },
  mouth: { base: "#9a3a4c", shade: "#9a3a4c", outline: 0, doubleSided: true },
  tongue: { base: "#ea8290", shade: "#ea8290", outline: 0, doubleSided: true },
  nose: { base: "#e9a48f", shade: "#e9a48f", outline: 0, doubleSided: true },
  blush: { base: "#ff7f98", shade: "#ff7f98", outline: 0, alpha: 0.5, doubleSided: true },
};

/** A generated character: her name, hairstyle and the colours that differ from Yui's palette. */
export interface Variant {
  name: string;
  hairstyle: Hairstyle;
  colours: Partial<Record<MaterialKey, Partial<Look>>>;
}

const hairOf = (cap: [string, string], hair: [string, string, string]): Variant["colours"] => ({
  hairCap: { base: cap[0], shade: cap[1] },
  hair: { base: hair[0], shade: hair[1], outlineColor: hair[2] },
});

/**
 * The generated characters. The first is the default character, Yui; a new preset without a model of its own gets
 * the next one not yet worn (host/server/looks.ts), so two characters never look alike until all are worn.
 */
export const VARIANTS: readonly Variant[] = [
  { name: "Yui", hairstyle: "twintails", colours: {} },
  {
    name: "Mika",
    hairstyle: "ponytail",
    colours: {
      ...hairOf(["#5a3a28", "#35200f"], ["#6e4630", "#3e2616", "#24140a"]),
      iris: { base: "#d89a2c", shade: "#d89a2c" },
      pupil: { base: "#5a3008", shade: "#5a3008" },
      accent: { base: "#2b3f7a", shade: "#18244a", outlineColor: "#0c1230" },
      ribbon: { base: "#e0404a", shade: "#a82832" },
      sock: { base: "#f2f2f6", shade: "#c8cad8" },
      shoe: { base: "#2a2a30", shade: "#16161a" },
    },
  },
  {
    name: "Rin",
    hairstyle: "bob",
    colours: {
      ...hairOf(["#cdb98a", "#9a8560"], ["#e0cd9c", "#a8926a", "#6a5a3c"]),
      iris: { base: "#8a5ad0", shade: "#8a5ad0" },
      pupil: { base: "#3a1f60", shade: "#3a1f60" },
      accent: { base: "#8a2a40", shade: "#561826", outlineColor: "#2e0c14" },
      ribbon: { base: "#f0c040", shade: "#b88c20" },
      shoe: { base: "#3a2a20", shade: "#20160f" },
    },
  },
  {
    name: "Nao",
    hairstyle: "long",
    colours: {
      ...hairOf(["#d06c98", "#913e66"], ["#e47fa9", "#a84a76", "#5e2240"]),
      iris: { base: "#3faa5a", shade: "#3faa5a" },
      pupil: { base: "#124a22", shade: "#124a22" },
      blouse: { base: "#fff8ec", shade: "#e4d6c0" },
      accent: { base: "#4d7a3a", shade: "#2e4a22", outlineColor: "#142410" },
      ribbon: { base: "#ffd34d", shade: "#c8a030" },
      sock: { base: "#3a2a3a", shade: "#201620" },
      shoe: { base: "#5a3a2a", shade: "#34201a" },
    },
  },
];

/** Head and hair-cap sphere segments (around, down). */
const HEAD_SEGMENTS = [24, 24] as const;
const CAP_SEGMENTS = [20, 24] as const;
/** Hair strands: segments along, sides around; the twin tails (the silhouette) get more. */
const STRAND_SEGMENTS = [5, 4] as const;
const BACK_LOCK_SEGMENTS = [4, 5] as const;
const TAIL_SEGMENTS = [8, 6] as const;

const M = new THREE.Matrix4();
const at = (x: number, y: number, z: number) => new THREE.Matrix4().makeTranslation(x, y, z);
/** A surface of revolution about Y; the profile runs bottom to top so normals face outward. */
const lathe = (profile: Array<[number, number]>, segments = 20) => {
  const points = profile.map(([r, y]) => new THREE.Vector2(r, y));
  if (points[0]!.y > points[points.length - 1]!.y) points.reverse();
  return new THREE.LatheGeometry(points, segments);
};
/** Scales a geometry's depth (z) so lathed parts get an oval cross-section. */
const squash = (g: THREE.BufferGeometry, z: number, x = 1) => g.scale(x, 1, z);

type Add = (mat: BodyMaterial, g: THREE.BufferGeometry, m: THREE.Matrix4, skin: SkinFn) => void;

/** Appends a part to its material's mesh (made on first use). */
function adder(parts: Map<BodyMaterial, MeshData>): Add {
  return (mat, g, m, skin) => {
    let mesh = parts.get(mat);
    if (!mesh) {
      mesh = emptyMesh();
      parts.set(mat, mesh);
    }
    appendGeometry(mesh, g, m, skin);
  };
}

/** Head and neck: only the face, the chin and the nape (the hair cap hides the rest of the head). */
function headAndNeck(add: Add) {
  add(
    "skin",
    headGeometry(1, (p) => (p.z > -0.05 && p.y < 0.62) || p.y < -0.6, ...HEAD_SEGMENTS),
    M,
    rigid("head"),
  );
  add(
    "skin",
    new THREE.CylinderGeometry(0.03, 0.033, 0.14, 10, 2, true),
    at(0, 1.15, -0.005),
    alongAxis("y", [
      [1.1, "upperChest"],
      [1.13, "neck"],
      [1.19, "head"],
    ]),
  );
}

const torsoSkin = alongAxis("y", [
  [0.82, "hips"],
  [0.88, "spine"],
  [0.96, "chest"],
  [1.03, "upperChest"],
]);

/** Torso: a blouse with a sailor collar and a bow. */
function torso(add: Add) {
  add(
    "blouse",
    squash(
      lathe([
        [0.0001, 0.83],
        [0.1, 0.83],
        [0.086, 0.9],
        [0.098, 0.97],
        [0.11, 1.02],
        [0.108, 1.06],
        [0.084, 1.092],
        [0.036, 1.112],
        [0.0001, 1.115],
      ]),
      0.72,
    ),
    M,
    torsoSkin,
  );
  add(
    "accent",
    squash(
      lathe([
        [0.117, 1.035],
        [0.123, 1.06],
        [0.1, 1.093],
        [0.052, 1.112],
      ]),
      0.76,
    ),
    M,
    rigid("upperChest"),
  );
  const bow = (sx: number) => new THREE.SphereGeometry(1, 8, 5).scale(0.027, 0.015, 0.01).rotateZ(sx * 0.35);
  add("ribbon", bow(1), at(0.025, 1.03, 0.086), rigid("upperChest"));
  add("ribbon", bow(-1), at(-0.025, 1.03, 0.086), rigid("upperChest"));
  add("ribbon", new THREE.SphereGeometry(0.011, 6, 4), at(0, 1.03, 0.092), rigid("upperChest"));
  for (const sx of [1, -1]) {
    add(
      "ribbon",
      new THREE.CapsuleGeometry(0.006, 0.045, 1, 5).rotateZ(sx * 0.3),
      at(sx * 0.01, 1.0, 0.088),
      torsoSkin,
    );
  }
}

/** The pleated skirt. */
function skirt(add: Add) {
  const g = lathe(
    [
      [0.097, 0.865],
      [0.104, 0.84],
      [0.226, 0.585],
      [0.232, 0.57],
    ],
    32,
  );
  const sp = g.getAttribute("position");
  for (let i = 0; i < sp.count; i++) {
    const x = sp.getX(i);
    const z = sp.getZ(i);
    const a = Math.atan2(z, x);
    const depth = THREE.MathUtils.clamp((0.84 - sp.getY(i)) / 0.25, 0, 1);
    const k = 1 + 0.045 * depth * Math.abs(Math.sin(8 * a));
    sp.setXYZ(i, x * k, sp.getY(i), z * k * 0.85);
  }
  g.computeVertexNormals();
  add("accent", g, M, rigid("hips"));
}

/** One arm: upper arm, puffed sleeve, forearm, hand and thumb. Lathed along +Y, turned along the T-pose arm. */
function arm(add: Add, side: "left" | "right") {
  const s = side === "left" ? 1 : -1;
  const bone = (n: string) => `${side}${n}`;
  const alongArm = (x: number) =>
    new THREE.Matrix4()
      .makeTranslation(x, 1.07, 0)
      .multiply(new THREE.Matrix4().makeRotationZ(-s * Math.PI * 0.5));
  const armSkin = alongAxis("x", [
    [s * 0.31, bone("UpperArm")],
    [s * 0.35, bone("LowerArm")],
  ]);
  const upper: Array<[number, number]> = [
    [0.0001, 0.05],
    [0.0295, 0.06],
    [0.03, 0.1],
    [0.026, 0.2],
    [0.0001, 0.228],
  ];
  add("skin", lathe(upper, 10), alongArm(s * 0.115), armSkin);
  add(
    "blouse",
    new THREE.SphereGeometry(1, 10, 7).scale(0.05, 0.078, 0.046),
    alongArm(s * 0.158),
    rigid(bone("UpperArm")),
  );
  const fore: Array<[number, number]> = [
    [0.0001, -0.012],
    [0.025, 0.0],
    [0.024, 0.08],
    [0.02, 0.19],
    [0.0001, 0.206],
  ];
  add(
    "skin",
    lathe(fore, 10),
    alongArm(s * 0.33),
    alongAxis("x", [
      [s * 0.34, bone("LowerArm")],
      [s * 0.52, bone("LowerArm")],
      [s * 0.545, bone("Hand")],
    ]),
  );
  add(
    "skin",
    new THREE.SphereGeometry(1, 8, 5).scale(0.046, 0.017, 0.032),
    at(s * 0.57, 1.068, 0.003),
    rigid(bone("Hand")),
  );
  add(
    "skin",
    new THREE.CapsuleGeometry(0.009, 0.026, 1, 5).rotateX(Math.PI / 2).rotateY(s * 0.5),
    at(s * 0.545, 1.066, 0.034),
    rigid(bone("Hand")),
  );
}

/** One leg: thigh, over-knee sock, shoe. */
function leg(add: Add, side: "left" | "right") {
  const s = side === "left" ? 1 : -1;
  const bone = (n: string) => `${side}${n}`;
  const legSkin = alongAxis("y", [
    [0.4, bone("LowerLeg")],
    [0.445, bone("UpperLeg")],
  ]);
  const thigh: Array<[number, number]> = [
    [0.0001, 0.68],
    [0.054, 0.68],
    [0.047, 0.56],
    [0.043, 0.47],
    [0.0001, 0.455],
  ];
  add("skin", lathe(thigh, 10), at(s * 0.075, 0, 0), legSkin);
  const sock: Array<[number, number]> = [
    [0.0001, 0.49],
    [0.0445, 0.485],
    [0.041, 0.42],
    [0.043, 0.33],
    [0.032, 0.16],
    [0.028, 0.1],
    [0.0001, 0.065],
  ];
  add(
    "sock",
    lathe(sock, 10),
    at(s * 0.075, 0, 0),
    alongAxis("y", [
      [0.09, bone("Foot")],
      [0.12, bone("LowerLeg")],
      [0.4, bone("LowerLeg")],
      [0.445, bone("UpperLeg")],
    ]),
  );
  add(
    "shoe",
    new THREE.SphereGeometry(1, 8, 5).scale(0.043, 0.037, 0.078),
    at(s * 0.075, 0.037, 0.028),
    rigid(bone("Foot")),
  );
}

/** Everything but the hair: head and neck, torso, skirt, arms and legs. */
function body(parts: Map<BodyMaterial, MeshData>) {
  const add = adder(parts);
  headAndNeck(add);
  torso(add);
  skirt(add);
  for (const side of ["left", "right"] as const) {
    arm(add, side);
    leg(add, side);
  }
}

/** A hair strand along `pts`: its half width and thickness along the way, its face turned to `normalOf`. */
function strand(
  pts: THREE.Vector3[],
  widths: (k: number) => [number, number],
  normalOf: (p: THREE.Vector3) => THREE.Vector3,
  [n, sides]: readonly [number, number] = STRAND_SEGMENTS,
) {
  const curve = new THREE.CatmullRomCurve3(pts);
  const out: StrandPoint[] = [];
  for (let i = 0; i <= n; i++) {
    const k = i / n;
    const p = curve.getPoint(k);
    const tangent = curve.getTangent(k);
    const up = normalOf(p);
    const side = new THREE.Vector3().crossVectors(up, tangent).normalize();
    const [hw, ht] = widths(k);
    out.push({
      p,
      side,
      up: new THREE.Vector3().crossVectors(tangent, side).normalize(),
      halfWidth: hw,
      halfThickness: ht,
    });
  }
  return strandGeometry(out, sides);
}

const outward = (p: THREE.Vector3) => p.clone().sub(HEAD_CENTRE).normalize();

/** Bangs: short in the middle, long side locks framing the cheeks. */
function bangs(mesh: MeshData, count: number) {
  for (let i = 0; i < count; i++) {
    const u = -1 + (2 * i) / (count - 1);
    const rootX = u * 0.115;
    const sideLock = Math.abs(u) > 0.85;
    const tipY = sideLock ? -0.115 : 0.058 - 0.05 * Math.abs(u) ** 2 + (i % 2 ? 0.01 : 0);
    const tipX = u * (sideLock ? 0.142 : 0.128);
    const pts: THREE.Vector3[] = [];
    for (let j = 0; j <= 4; j++) {
      const k = j / 4;
      const x =
        THREE.MathUtils.lerp(rootX, tipX, k) + (sideLock ? 0 : Math.sin(k * Math.PI) * 0.006 * Math.sign(u));
      const y = THREE.MathUtils.lerp(0.125, tipY, k);
      const lift = 0.016 - 0.006 * k + (sideLock ? 0.008 : 0);
      pts.push(facePoint(x, y, lift).p);
    }
    const widths = (k: number): [number, number] => [
      (sideLock ? 0.02 : 0.019) * (1 - k) ** 0.8 + 0.0015,
      0.007 * (1 - k) + 0.002,
    ];
    appendGeometry(mesh, strand(pts, widths, outward), M, rigid("head"));
  }
}

/** Back hair: broad locks falling `length` below the head's centre (0.25: to the shoulder blades). */
function backLocks(cap: MeshData, length: number) {
  const c = (dir: THREE.Vector3, out: number, y: number, z = 0) =>
    HEAD_CENTRE.clone()
      .addScaledVector(dir, out)
      .add(new THREE.Vector3(0, y, z));
  const skin = alongAxis("y", [
    [1.1, "upperChest"],
    [1.16, "head"],
  ]);
  const flat = (p: THREE.Vector3) => {
    const d = p.clone().sub(HEAD_CENTRE);
    d.y = 0;
    return d.normalize();
  };
  for (let i = 0; i < 7; i++) {
    const a = Math.PI * (0.5 + (i - 3) * 0.17);
    const dir = new THREE.Vector3(Math.cos(a), 0, -Math.sin(a));
    const pts = [
      c(dir, 0.12, 0.04),
      c(dir, 0.165, -0.06),
      c(dir, 0.15, -0.68 * length, -0.02),
      c(dir, 0.14, -length + Math.abs(i - 3) * 0.015, -0.03),
    ];
    const widths = (k: number): [number, number] => [0.038 * (1 - k) ** 0.6 + 0.002, 0.012 * (1 - k) + 0.003];
    appendGeometry(cap, strand(pts, widths, flat, BACK_LOCK_SEGMENTS), M, skin);
  }
}

/** A vertex of a spring lock goes with the nearest segment of its chain, blended past the segment's middle. */
function chainSkin(joints: Array<{ p: THREE.Vector3; name: string }>): SkinFn {
  return (p) => {
    let best: Influence = [[joints[0]!.name, 1]];
    let bestD = Number.POSITIVE_INFINITY;
    for (let i = 0; i < joints.length - 1; i++) {
      const a = joints[i]!;
      const b = joints[i + 1]!;
      const ab = b.p.clone().sub(a.p);
      const t = THREE.MathUtils.clamp(p.clone().sub(a.p).dot(ab) / ab.lengthSq(), 0, 1);
      const d = a.p.clone().addScaledVector(ab, t).distanceTo(p);
      if (d < bestD) {
        bestD = d;
        best =
          t < 0.5
            ? [[a.name, 1]]
            : [
                [a.name, 1.5 - t],
                [b.name, t - 0.5],
              ];
      }
    }
    return best;
  };
}

/** The spring locks (the ahoge and the tails), skinned along their joints; a tail is tied with a ribbon. */
function springLocks(parts: Map<BodyMaterial, MeshData>, mesh: MeshData, chains: readonly SpringChain[]) {
  for (const chain of chains) {
    const joints = chain.points.map((p, i) => ({
      p: new THREE.Vector3(...p),
      name: `hair_${chain.name}_${i}`,
    }));
    const isTail = chain.name.startsWith("tail");
    const widths = (k: number): [number, number] =>
      isTail
        ? [(0.028 + 0.04 * Math.sin(Math.PI * Math.min(1, k * 1.25 + 0.1))) * (1 - k) ** 0.35 + 0.002, 0]
        : [0.007 * (1 - k) + 0.0015, 0.004 * (1 - k) + 0.001];
    // A side tail faces away from the head sideways, a tail at the back faces backwards.
    const tailNormal = (p: THREE.Vector3) =>
      Math.abs(p.x) > 1e-6 ? new THREE.Vector3(p.x, 0, 0).normalize() : new THREE.Vector3(0, 0, -1);
    const geometry = strand(
      joints.map((j) => j.p),
      (k) => {
        const [w, t] = widths(k);
        return isTail ? [w * 1.1, w * 0.8] : [w, t];
      },
      (p) => (isTail ? tailNormal(p) : new THREE.Vector3(1, 0, 0)),
      isTail ? TAIL_SEGMENTS : STRAND_SEGMENTS,
    );
    appendGeometry(mesh, geometry, M, chainSkin(joints));
    if (isTail) {
      const tie = new THREE.SphereGeometry(0.024, 6, 4).scale(1, 0.8, 1);
      const [x, y, z] = chain.points[0]!;
      const ribbons = parts.get("ribbon") ?? emptyMesh();
      parts.set("ribbon", ribbons);
      appendGeometry(ribbons, tie, at(x, y, z), rigid(`hair_${chain.name}_0`));
    }
  }
}

/** The hair: the cap (with a window for the face, short of the neck), bangs, back locks and spring locks. */
function hair(parts: Map<BodyMaterial, MeshData>, style: Hairstyle) {
  const { chains, backLength, bangs: count } = HAIRSTYLES[style];
  const cap = emptyMesh();
  parts.set("hairCap", cap);
  const mesh = emptyMesh();
  parts.set("hair", mesh);
  appendGeometry(
    cap,
    headGeometry(1.09, (p) => !(p.z > 0.12 && p.y < 0.42) && p.y > -0.72, ...CAP_SEGMENTS),
    M,
    rigid("head"),
  );
  bangs(mesh, count);
  backLocks(cap, backLength);
  springLocks(parts, mesh, chains);
}

/** The generated character: skinned body primitives per material, the morphing face, her look and skeleton. */
export interface CharacterModel {
  body: Array<{ material: BodyMaterial; mesh: MeshData }>;
  face: FacePrimitive[];
  /** Her name (the VRM meta's). */
  name: string;
  palette: Record<MaterialKey, Look>;
  bones: BoneDef[];
  springs: readonly SpringChain[];
}

/** Builds a generated character's geometry: the default one, "Yui", or another of VARIANTS. */
export function buildCharacter(variant = 0): CharacterModel {
  const v = VARIANTS[variant % VARIANTS.length]!;
  const parts = new Map<BodyMaterial, MeshData>();
  body(parts);
  hair(parts, v.hairstyle);
  const palette = { ...PALETTE };
  for (const [key, look] of Object.entries(v.colours) as Array<[MaterialKey, Partial<Look>]>)
    palette[key] = { ...palette[key], ...look };
  const springs = HAIRSTYLES[v.hairstyle].chains;
  return {
    body: [...parts.entries()].map(([material, mesh]) => ({ material, mesh })),
    face: buildFace(),
    name: v.name,
    palette,
    bones: bonesOf(springs),
    springs,
  };
}

/** Expression definitions: which face morphs each VRM expression drives, and its override rules. */
export interface ExpressionDef {
  morphs: Array<[(typeof FACE_MORPHS)[number], number]>;
  overrideBlink?: "none" | "block" | "blend";
  overrideMouth?: "none" | "block" | "blend";
}

/** VRM preset expressions of the default character (neutral has no binds: it is the rest face). */
export const PRESET_EXPRESSIONS: Record<string, ExpressionDef> = {
  neutral: { morphs: [] },
  happy: { morphs: [["happy", 1]], overrideBlink: "block" },
  angry: { morphs: [["angry", 1]], overrideBlink: "blend" },
  sad: { morphs: [["sad", 1]], overrideBlink: "blend" },
  relaxed: { morphs: [["relaxed", 1]], overrideBlink: "blend" },
  surprised: { morphs: [["surprised", 1]] },
  aa: { morphs: [["aa", 1]] },
  ih: { morphs: [["ih", 1]] },
  ou: { morphs: [["ou", 1]] },
  ee: { morphs: [["ee", 1]] },
  oh: { morphs: [["oh", 1]] },
  blink: { morphs: [["blink", 1]] },
  blinkLeft: { morphs: [["blinkLeft", 1]] },
  blinkRight: { morphs: [["blinkRight", 1]] },
};

/** Custom expressions: one for each vocabulary emotion without a VRM preset, plus blush. */
export const CUSTOM_EXPRESSIONS: Record<string, ExpressionDef> = {
  shy: { morphs: [["shy", 1]], overrideBlink: "blend" },
  thinking: { morphs: [["thinking", 1]] },
  blush: { morphs: [["blush", 1]] },
};
