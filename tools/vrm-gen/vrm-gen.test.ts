import type * as Mtoon from "@pixiv/types-vrmc-materials-mtoon-1.0";
import type * as Spring from "@pixiv/types-vrmc-springbone-1.0";
import type * as Vrm from "@pixiv/types-vrmc-vrm-1.0";
import validator from "gltf-validator";
import { beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_EXPRESSIONS, EMOTION_IDS } from "../../src/avatar/default-expressions.ts";
import { buildCharacter, VARIANTS } from "./character.ts";
import { readGlbJson } from "./glb.ts";
import { writeVrm } from "./write-vrm.ts";

// Structural validation of the generated default character against glTF 2.0 (Khronos validator)
// and the VRM 1.0 required fields: humanoid bones, expressions, meta, MToon, spring bones.

interface GltfJson {
  asset: { version: string };
  nodes: Array<{
    name?: string;
    children?: number[];
    rotation?: number[];
    scale?: number[];
    mesh?: number;
    skin?: number;
  }>;
  meshes: Array<{
    primitives: Array<{ targets?: unknown[]; material?: number; attributes: Record<string, number> }>;
    extras?: { targetNames?: string[] };
  }>;
  accessors: Array<{ min?: number[]; max?: number[] }>;
  materials: Array<{ name?: string; extensions?: { VRMC_materials_mtoon?: Mtoon.VRMCMaterialsMToon } }>;
  extensionsUsed: string[];
  extensions: { VRMC_vrm: Vrm.VRMCVRM; VRMC_springBone: Spring.VRMCSpringBone };
}

/** VRM 1.0's required humanoid bones (humanoid.md). */
const REQUIRED_BONES = [
  "hips",
  "spine",
  "head",
  "leftUpperLeg",
  "leftLowerLeg",
  "leftFoot",
  "rightUpperLeg",
  "rightLowerLeg",
  "rightFoot",
  "leftUpperArm",
  "leftLowerArm",
  "leftHand",
  "rightUpperArm",
  "rightLowerArm",
  "rightHand",
] as const;

/** Each bone and the humanoid bone that must be its nearest humanoid ancestor. */
const HUMANOID_PARENTS: Record<string, string> = {
  spine: "hips",
  chest: "spine",
  upperChest: "chest",
  neck: "upperChest",
  head: "neck",
  leftEye: "head",
  rightEye: "head",
  leftShoulder: "upperChest",
  leftUpperArm: "leftShoulder",
  leftLowerArm: "leftUpperArm",
  leftHand: "leftLowerArm",
  rightShoulder: "upperChest",
  rightUpperArm: "rightShoulder",
  rightLowerArm: "rightUpperArm",
  rightHand: "rightLowerArm",
  leftUpperLeg: "hips",
  leftLowerLeg: "leftUpperLeg",
  leftFoot: "leftLowerLeg",
  leftToes: "leftFoot",
  rightUpperLeg: "hips",
  rightLowerLeg: "rightUpperLeg",
  rightFoot: "rightLowerLeg",
  rightToes: "rightFoot",
};

/** The preset expressions the character must carry: the five emotions, blink and the five mouth shapes. */
const REQUIRED_PRESETS = [
  "happy",
  "angry",
  "sad",
  "relaxed",
  "surprised",
  "neutral",
  "blink",
  "aa",
  "ih",
  "ou",
  "ee",
  "oh",
];

let bytes: Uint8Array;
let json: GltfJson;

beforeAll(async () => {
  bytes = await writeVrm(buildCharacter());
  json = readGlbJson(bytes) as GltfJson;
});

describe("the generated default character", () => {
  it("is a valid glTF 2.0 binary with no validator errors or warnings", async () => {
    const report = await validator.validateBytes(bytes, { maxIssues: 100 });
    const problems = report.issues.messages.filter((m: { severity: number }) => m.severity <= 1);
    expect(problems).toEqual([]);
    expect(json.asset.version).toBe("2.0");
    expect(json.extensionsUsed).toEqual(
      expect.arrayContaining(["VRMC_vrm", "VRMC_materials_mtoon", "VRMC_springBone"]),
    );
  });

  it("declares VRM 1.0 with complete meta", () => {
    const vrm = json.extensions.VRMC_vrm;
    expect(vrm.specVersion).toBe("1.0");
    expect(vrm.meta.name).toBe("Yui");
    expect(vrm.meta.authors.length).toBeGreaterThan(0);
    expect(vrm.meta.licenseUrl).toBe("https://vrm.dev/licenses/1.0/");
    expect(vrm.meta.avatarPermission).toBe("everyone");
  });

  it("maps every required humanoid bone, in a valid hierarchy, in an unrotated rest pose", () => {
    const bones = json.extensions.VRMC_vrm.humanoid.humanBones as Record<string, { node: number }>;
    for (const bone of REQUIRED_BONES) expect(bones[bone], bone).toBeDefined();
    const parentOf = new Map<number, number>();
    json.nodes.forEach((n, i) => {
      for (const c of n.children ?? []) parentOf.set(c, i);
    });
    const boneOfNode = new Map(Object.entries(bones).map(([name, b]) => [b.node, name]));
    for (const [bone, parent] of Object.entries(HUMANOID_PARENTS)) {
      let n = parentOf.get(bones[bone]!.node);
      while (n !== undefined && !boneOfNode.has(n)) n = parentOf.get(n);
      expect(n === undefined ? null : boneOfNode.get(n), bone).toBe(parent);
    }
    for (const node of json.nodes) {
      expect(node.rotation ?? [0, 0, 0, 1]).toEqual([0, 0, 0, 1]);
      expect(node.scale ?? [1, 1, 1]).toEqual([1, 1, 1]);
    }
  });

  it("has an expression for every vocabulary emotion, blink and the five mouth shapes, bound to real morph targets", () => {
    const { preset = {}, custom = {} } = json.extensions.VRMC_vrm.expressions ?? {};
    const names = new Set([...Object.keys(preset), ...Object.keys(custom)]);
    for (const p of REQUIRED_PRESETS) expect(preset[p as keyof typeof preset], p).toBeDefined();
    for (const emotion of EMOTION_IDS) {
      const wanted = Object.keys(DEFAULT_EXPRESSIONS[emotion]);
      expect(
        wanted.every((n) => names.has(n)),
        emotion,
      ).toBe(true);
    }
    expect(names.has("shy") && names.has("thinking")).toBe(true);
    for (const [name, e] of Object.entries({ ...preset, ...custom })) {
      if (name === "neutral") continue;
      expect(e!.morphTargetBinds?.length, name).toBeGreaterThan(0);
      for (const bind of e!.morphTargetBinds ?? []) {
        const mesh = json.meshes[json.nodes[bind.node]!.mesh!]!;
        expect(bind.index).toBeLessThan(mesh.primitives[0]!.targets!.length);
        expect(mesh.extras?.targetNames?.[bind.index]).toBe(name === "blush" ? "blush" : name);
      }
    }
    expect(preset.happy?.overrideBlink).toBe("block");
  });

  it("uses MToon on every material", () => {
    for (const m of json.materials) {
      expect(m.extensions?.VRMC_materials_mtoon?.specVersion, m.name).toBe("1.0");
    }
  });

  it("has spring-bone chains whose joints are parent and child, with colliders on real nodes", () => {
    const spring = json.extensions.VRMC_springBone;
    expect(spring.specVersion).toBe("1.0");
    expect(spring.springs?.map((s) => s.name)).toEqual(["ahoge", "tailL", "tailR"]);
    for (const s of spring.springs ?? []) {
      for (let i = 1; i < s.joints.length; i++) {
        expect(json.nodes[s.joints[i - 1]!.node]!.children).toContain(s.joints[i]!.node);
      }
    }
    for (const c of spring.colliders ?? []) {
      expect(c.node).toBeTypeOf("number");
      expect(json.nodes[c.node as number]).toBeDefined();
    }
  });
});

describe("the generated characters (VARIANTS)", () => {
  const looks: Array<{ name: string; json: GltfJson; bytes: Uint8Array }> = [];
  beforeAll(async () => {
    for (let v = 0; v < VARIANTS.length; v++) {
      const b = await writeVrm(buildCharacter(v));
      looks.push({ name: VARIANTS[v]!.name, bytes: b, json: readGlbJson(b) as GltfJson });
    }
  });
  const baseOf = (json: GltfJson, material: string) =>
    JSON.stringify(json.materials.find((m) => m.name === material)?.extensions?.VRMC_materials_mtoon);

  it("the first is the default character, Yui", () => {
    expect(looks[0]!.json).toEqual(json);
  });

  it("are each valid VRM 1.0, with her name and the same humanoid", async () => {
    for (const { name, bytes: b, json: j } of looks) {
      const report = await validator.validateBytes(b, { maxIssues: 100 });
      expect(
        report.issues.messages.filter((m: { severity: number }) => m.severity <= 1),
        name,
      ).toEqual([]);
      expect(j.extensions.VRMC_vrm.meta.name).toBe(name);
      expect(Object.keys(j.extensions.VRMC_vrm.humanoid.humanBones).sort()).toEqual(
        Object.keys(json.extensions.VRMC_vrm.humanoid.humanBones).sort(),
      );
    }
  });

  it("differ two by two in hair colour, eye colour, outfit colour and hairstyle", () => {
    for (let a = 0; a < looks.length; a++) {
      for (let b = a + 1; b < looks.length; b++) {
        const [x, y] = [looks[a]!, looks[b]!];
        const pair = `${x.name} / ${y.name}`;
        for (const material of ["hair", "hairCap", "iris", "accent"])
          expect(baseOf(x.json, material), `${pair}: ${material}`).not.toBe(baseOf(y.json, material));
        // The hairstyle: her spring locks, and how far down the back hair (the hair cap's material) falls.
        const hairstyle = (j: GltfJson) => {
          const cap = j.materials.findIndex((m) => m.name === "hairCap");
          const prim = j.meshes.flatMap((m) => m.primitives).find((pr) => pr.material === cap)!;
          const lowest = Math.round(j.accessors[prim.attributes.POSITION!]!.min![1]! * 100) / 100;
          return { springs: j.extensions.VRMC_springBone.springs?.map((s) => s.name), lowest };
        };
        expect(hairstyle(x.json), pair).not.toEqual(hairstyle(y.json));
      }
    }
  });
});
