import type * as Mtoon from "@pixiv/types-vrmc-materials-mtoon-1.0";
import type * as Vrm from "@pixiv/types-vrmc-vrm-1.0";
import validator from "gltf-validator";
import { beforeAll, describe, expect, it } from "vitest";
import { BONES } from "./character.ts";
import { readGlbJson } from "./glb.ts";
import { buildTestModels, MTOON_SCALE, MTOON_UV, TEST_MODEL_NAMES } from "./test-models.ts";
import { VRMA_SECONDS } from "./write-vrma.ts";

// The generated test models carry what the third-party samples did: their own names, the isBinary rules of
// the VRM spec's isBinary samples, MToon UV animation on textured materials, and a VRM Animation clip.

interface Json {
  extensionsUsed?: string[];
  nodes: Array<{ name?: string; translation?: number[] }>;
  materials?: Array<{
    name?: string;
    pbrMetallicRoughness?: { baseColorTexture?: { index: number } };
    extensions?: { VRMC_materials_mtoon?: Mtoon.VRMCMaterialsMToon };
  }>;
  meshes?: Array<{ primitives: Array<{ attributes: Record<string, number>; material?: number }> }>;
  images?: Array<{ mimeType?: string }>;
  animations?: Array<{
    channels: Array<{ target: { node: number; path: string }; sampler: number }>;
    samplers: Array<{ input: number }>;
  }>;
  accessors: Array<{ max?: number[] }>;
  extensions: {
    VRMC_vrm?: Vrm.VRMCVRM;
    VRMC_vrm_animation?: {
      specVersion: string;
      humanoid: { humanBones: Record<string, { node: number }> };
      expressions?: { preset?: Record<string, { node: number }> };
    };
  };
}

let models: Awaited<ReturnType<typeof buildTestModels>>;
const json = (key: keyof typeof models) => readGlbJson(models[key]) as Json;
const expressions = (key: keyof typeof models) => json(key).extensions.VRMC_vrm!.expressions!.preset!;

beforeAll(async () => {
  models = await buildTestModels();
});

describe("generated test models", () => {
  it("are valid glTF 2.0 without a single warning, except the 0.x file's legacy extension name", async () => {
    for (const key of ["default", "overrides", "overridden", "mtoon", "vrma"] as const) {
      const report = await validator.validateBytes(models[key]);
      expect(
        report.issues.messages.filter((m) => m.severity <= 1),
        key,
      ).toEqual([]);
    }
    const v0 = await validator.validateBytes(models.vrm0);
    expect(v0.issues.numErrors).toBe(0);
  });

  it("name themselves, so a test can tell which one the stage shows", () => {
    for (const key of ["default", "overrides", "overridden", "mtoon"] as const)
      expect(json(key).extensions.VRMC_vrm!.meta.name, key).toBe(TEST_MODEL_NAMES[key]);
  });

  it("carry the isBinary rules of the VRM spec's isBinary samples", () => {
    expect(expressions("overrides").happy).toMatchObject({ isBinary: true, overrideBlink: "blend" });
    expect(expressions("overrides").blink).toMatchObject({ isBinary: false });
    expect(expressions("overridden").happy).toMatchObject({ isBinary: false, overrideBlink: "blend" });
    expect(expressions("overridden").blink).toMatchObject({ isBinary: true });
    // The default character keeps its own rules.
    expect(expressions("default").happy).toMatchObject({ isBinary: false, overrideBlink: "block" });
  });

  it("give the MToon model textured, UV-mapped materials with UV animation, at 0.6 of the size", () => {
    const j = json("mtoon");
    for (const [key, speed] of Object.entries(MTOON_UV)) {
      const index = j.materials!.findIndex((m) => m.name === key);
      const material = j.materials![index]!;
      expect(material.pbrMetallicRoughness?.baseColorTexture, key).toBeDefined();
      const ext = material.extensions!.VRMC_materials_mtoon!;
      const s = speed as { scrollX?: number; scrollY?: number; rotation?: number };
      expect(ext.uvAnimationScrollXSpeedFactor, key).toBe(s.scrollX ?? 0);
      expect(ext.uvAnimationScrollYSpeedFactor, key).toBe(s.scrollY ?? 0);
      expect(ext.uvAnimationRotationSpeedFactor, key).toBe(s.rotation ?? 0);
      const prims = j.meshes!.flatMap((m) => m.primitives).filter((p) => p.material === index);
      expect(prims.length, key).toBeGreaterThan(0);
      for (const p of prims) expect(p.attributes.TEXCOORD_0, key).toBeDefined();
    }
    expect(j.images!.map((i) => i.mimeType)).toEqual(["image/png", "image/png", "image/png"]);
    // The hips sit at 0.8 m in the default character; everything is scaled alike.
    const hips = (key: "default" | "mtoon") => json(key).nodes.find((n) => n.name === "hips")!.translation!;
    expect(hips("mtoon")[1]).toBeCloseTo(hips("default")[1]! * MTOON_SCALE, 6);
    expect(json("default").materials!.some((m) => m.pbrMetallicRoughness?.baseColorTexture)).toBe(false);
  });

  it("include a VRM Animation clip on the character's humanoid skeleton, which is not a model", () => {
    const j = json("vrma");
    expect(j.extensionsUsed).toEqual(["VRMC_vrm_animation"]);
    expect(j.extensions.VRMC_vrm).toBeUndefined();
    const ext = j.extensions.VRMC_vrm_animation!;
    expect(ext.specVersion).toBe("1.0");
    expect(Object.keys(ext.humanoid.humanBones).sort()).toEqual(
      BONES.filter((b) => b.humanoid)
        .map((b) => b.name)
        .sort(),
    );
    const [anim] = j.animations!;
    const targets = anim!.channels.map((c) => `${j.nodes[c.target.node]!.name}.${c.target.path}`);
    expect(targets).toEqual([
      "rightUpperArm.rotation",
      "rightLowerArm.rotation",
      "head.rotation",
      "happy.translation",
    ]);
    expect(ext.expressions?.preset?.happy?.node).toBe(j.nodes.findIndex((n) => n.name === "happy"));
    const ends = anim!.samplers.map((s) => j.accessors[s.input]!.max![0]);
    expect(Math.max(...(ends as number[]))).toBe(VRMA_SECONDS);
  });
});
