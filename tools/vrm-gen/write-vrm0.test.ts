import { VRMLoaderPlugin } from "@pixiv/three-vrm";
import type * as V0 from "@pixiv/types-vrm-0.0";
import type * as Mtoon from "@pixiv/types-vrmc-materials-mtoon-1.0";
import type * as Spring from "@pixiv/types-vrmc-springbone-1.0";
import type * as Vrm from "@pixiv/types-vrmc-vrm-1.0";
import validator from "gltf-validator";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { DEFAULT_EXPRESSIONS, EMOTION_IDS } from "../../src/avatar/default-expressions.ts";
import { buildCharacter } from "./character.ts";
import { readGlbJson } from "./glb.ts";
import { writeVrm } from "./write-vrm.ts";
import { v0BoneName, writeVrm0 } from "./write-vrm0.ts";

// Structural validation of the VRM 0.x variant of the default character against the VRM 0.0 schema
// (vrm-specification/specification/0.0, typed by @pixiv/types-vrm-0.0) and UniVRM's conventions, then a
// real read by @pixiv/three-vrm's loader (it needs no WebGL) compared with the 1.0 file.

/** What a VRM 0.x file must carry: the fields of each object of the `VRM` extension, and its vocabularies. */
const V0_SPEC = {
  fields: {
    vrm: [
      "exporterVersion",
      "specVersion",
      "meta",
      "humanoid",
      "firstPerson",
      "blendShapeMaster",
      "secondaryAnimation",
      "materialProperties",
    ],
    meta: [
      "title",
      "version",
      "author",
      "contactInformation",
      "reference",
      "allowedUserName",
      "violentUssageName",
      "sexualUssageName",
      "commercialUssageName",
      "otherPermissionUrl",
      "licenseName",
      "otherLicenseUrl",
    ],
    humanBone: ["bone", "node", "useDefaultValues"],
    firstPerson: [
      "firstPersonBone",
      "firstPersonBoneOffset",
      "meshAnnotations",
      "lookAtTypeName",
      "lookAtHorizontalInner",
      "lookAtHorizontalOuter",
      "lookAtVerticalDown",
      "lookAtVerticalUp",
    ],
    degreeMap: ["curve", "xRange", "yRange"],
    meshAnnotation: ["mesh", "firstPersonFlag"],
    blendShapeGroup: ["name", "presetName", "binds", "materialValues", "isBinary"],
    bind: ["mesh", "index", "weight"],
    boneGroup: [
      "stiffiness",
      "gravityPower",
      "gravityDir",
      "dragForce",
      "hitRadius",
      "bones",
      "colliderGroups",
    ],
    colliderGroup: ["node", "colliders"],
    collider: ["offset", "radius"],
    material: [
      "name",
      "shader",
      "renderQueue",
      "floatProperties",
      "vectorProperties",
      "textureProperties",
      "keywordMap",
      "tagMap",
    ],
    mtoonFloats: [
      "_Cutoff",
      "_BumpScale",
      "_ReceiveShadowRate",
      "_ShadingGradeRate",
      "_ShadeShift",
      "_ShadeToony",
      "_LightColorAttenuation",
      "_IndirectLightIntensity",
      "_RimLightingMix",
      "_RimFresnelPower",
      "_RimLift",
      "_OutlineWidth",
      "_OutlineScaledMaxDistance",
      "_OutlineLightingMix",
      "_UvAnimScrollX",
      "_UvAnimScrollY",
      "_UvAnimRotation",
      "_MToonVersion",
      "_DebugMode",
      "_BlendMode",
      "_OutlineWidthMode",
      "_OutlineColorMode",
      "_CullMode",
      "_OutlineCullMode",
      "_SrcBlend",
      "_DstBlend",
      "_ZWrite",
    ],
    mtoonVectors: ["_Color", "_ShadeColor", "_MainTex", "_RimColor", "_EmissionColor", "_OutlineColor"],
  },
  /** VRM 0.x's required humanoid bones (chest and neck are required in 0.x, unlike 1.0). */
  requiredBones: [
    "hips",
    "spine",
    "chest",
    "neck",
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
  ],
  /** Thumb bones: VRM 1.0 name and the 0.x name of the same bone. */
  thumbs: [
    ["leftThumbMetacarpal", "leftThumbProximal"],
    ["leftThumbProximal", "leftThumbIntermediate"],
    ["leftThumbDistal", "leftThumbDistal"],
    ["rightThumbMetacarpal", "rightThumbProximal"],
    ["rightThumbProximal", "rightThumbIntermediate"],
    ["rightThumbDistal", "rightThumbDistal"],
  ],
  /** Blend shape presets the character carries, and the VRM 1.0 expression each is read as (three-vrm's map). */
  presets: {
    neutral: "neutral",
    joy: "happy",
    angry: "angry",
    sorrow: "sad",
    fun: "relaxed",
    a: "aa",
    i: "ih",
    u: "ou",
    e: "ee",
    o: "oh",
    blink: "blink",
    blink_l: "blinkLeft",
    blink_r: "blinkRight",
  },
  /** Expressions 0.x has no preset for, written as custom groups (presetName "unknown") under these names. */
  custom: ["surprised", "shy", "thinking", "blush"],
  enums: {
    allowedUserName: ["OnlyAuthor", "ExplicitlyLicensedPerson", "Everyone"],
    violentUssageName: ["Disallow", "Allow"],
    sexualUssageName: ["Disallow", "Allow"],
    commercialUssageName: ["Disallow", "Allow"],
    licenseName: [
      "Redistribution_Prohibited",
      "CC0",
      "CC_BY",
      "CC_BY_NC",
      "CC_BY_SA",
      "CC_BY_NC_SA",
      "CC_BY_ND",
      "CC_BY_NC_ND",
      "Other",
    ],
    firstPersonFlag: ["Auto", "Both", "ThirdPersonOnly", "FirstPersonOnly"],
    lookAtTypeName: ["Bone", "BlendShape"],
  },
  /** The linear degree-map curve (time, value, inTangent, outTangent twice). */
  linearCurve: [0, 0, 0, 1, 1, 1, 1, 0],
  shader: "VRM/MToon",
  /** The one warning every VRM 0.x file gets: "VRM" lacks the PREFIX_name form glTF asks of extension names. */
  validatorWarnings: [{ code: "INVALID_EXTENSION_NAME_FORMAT", pointer: "/extensionsUsed/0" }],
} as const;

interface Gltf {
  extensionsUsed: string[];
  nodes: Array<{ name?: string; translation?: number[]; children?: number[]; mesh?: number }>;
  meshes: Array<{
    name?: string;
    primitives: Array<{ targets?: unknown[] }>;
    extras?: { targetNames?: string[] };
  }>;
  materials: Array<{
    name?: string;
    alphaMode?: string;
    doubleSided?: boolean;
    pbrMetallicRoughness?: { baseColorFactor?: number[] };
    extensions?: { VRMC_materials_mtoon?: Mtoon.VRMCMaterialsMToon };
  }>;
  extensions: { VRM: V0.VRM; VRMC_vrm: Vrm.VRMCVRM; VRMC_springBone: Spring.VRMCSpringBone };
}

let bytes: Uint8Array;
let v0json: Gltf;
let v0: Required<V0.VRM>;
let v1json: Gltf;
let v1bytes: Uint8Array;

beforeAll(async () => {
  const model = buildCharacter();
  [bytes, v1bytes] = await Promise.all([writeVrm0(model), writeVrm(model)]);
  v0json = readGlbJson(bytes) as Gltf;
  v0 = v0json.extensions.VRM as Required<V0.VRM>;
  v1json = readGlbJson(v1bytes) as Gltf;
});

/** Every field `fields` names is present on `obj`. */
function expectFields(obj: object | undefined, fields: readonly string[], where: string) {
  expect(obj, where).toBeTypeOf("object");
  const missing = fields.filter((f) => (obj as Record<string, unknown>)[f] === undefined);
  expect(missing, where).toEqual([]);
}

const gammaEOTF = (v: number) => v ** 2.2; // how three-vrm decodes 0.x colours
const nodeName = (i: number | undefined) => v0json.nodes[i!]?.name;

describe("the VRM 0.x variant of the default character", () => {
  it("is a valid glTF 2.0 binary using only the VRM extension, with every 0.x field", async () => {
    const report = await validator.validateBytes(bytes, { maxIssues: 100 });
    const problems = report.issues.messages.filter((m) => m.severity <= 1);
    expect(problems.map(({ code, pointer }) => ({ code, pointer }))).toEqual(V0_SPEC.validatorWarnings);
    expect(v0json.extensionsUsed).toEqual(["VRM"]);
    const { fields } = V0_SPEC;
    expectFields(v0, fields.vrm, "VRM");
    expect(v0.specVersion).toBe("0.0");
    expectFields(v0.meta, fields.meta, "meta");
    for (const b of v0.humanoid.humanBones ?? []) expectFields(b, fields.humanBone, `humanBone ${b.bone}`);
    const fp = v0.firstPerson;
    expectFields(fp, fields.firstPerson, "firstPerson");
    for (const map of [
      fp.lookAtHorizontalInner,
      fp.lookAtHorizontalOuter,
      fp.lookAtVerticalDown,
      fp.lookAtVerticalUp,
    ])
      expectFields(map, fields.degreeMap, "degree map");
    for (const a of fp.meshAnnotations ?? []) expectFields(a, fields.meshAnnotation, "meshAnnotation");
    for (const g of v0.blendShapeMaster.blendShapeGroups ?? []) {
      expectFields(g, fields.blendShapeGroup, `blendShapeGroup ${g.name}`);
      for (const b of g.binds ?? []) expectFields(b, fields.bind, `bind of ${g.name}`);
    }
    for (const s of v0.secondaryAnimation.boneGroups ?? [])
      expectFields(s, fields.boneGroup, `boneGroup ${s.comment}`);
    for (const c of v0.secondaryAnimation.colliderGroups ?? []) {
      expectFields(c, fields.colliderGroup, "colliderGroup");
      for (const s of c.colliders ?? []) expectFields(s, fields.collider, "collider");
    }
    for (const m of v0.materialProperties) {
      expectFields(m, fields.material, `material ${m.name}`);
      expectFields(m.floatProperties, fields.mtoonFloats, `floats of ${m.name}`);
      expectFields(m.vectorProperties, fields.mtoonVectors, `vectors of ${m.name}`);
    }
  });

  it("has a 0.x meta with the 1.0 file's work and permissions", () => {
    const meta = v0.meta;
    for (const [field, allowed] of Object.entries(V0_SPEC.enums)) {
      if (field in meta) expect(allowed, field).toContain((meta as Record<string, unknown>)[field]);
    }
    const v1 = v1json.extensions.VRMC_vrm.meta;
    expect(meta.title).toBe(v1.name);
    expect(meta.version).toBe(v1.version);
    expect(meta.author).toBe(v1.authors.join(", "));
    expect(meta.allowedUserName).toBe("Everyone");
    expect(meta.licenseName).toBe("Other");
    expect(meta.otherLicenseUrl).toBe(v1.licenseUrl);
  });

  it("names every required humanoid bone once, with 0.x names, on the nodes the 1.0 file uses", () => {
    const bones = v0.humanoid.humanBones ?? [];
    const names = bones.map((b) => b.bone);
    expect(new Set(names).size).toBe(names.length);
    for (const bone of V0_SPEC.requiredBones) expect(names, bone).toContain(bone);
    const v1Bones = v1json.extensions.VRMC_vrm.humanoid.humanBones as Record<string, { node: number }>;
    expect(bones.length).toBe(Object.keys(v1Bones).length);
    for (const b of bones) expect(nodeName(b.node), b.bone).toBe(v1json.nodes[v1Bones[b.bone!]!.node]!.name);
    for (const [v1, v0name] of V0_SPEC.thumbs) expect(v0BoneName(v1)).toBe(v0name);
  });

  it("faces -Z: the 1.0 skeleton turned half a turn about Y", () => {
    expect(v0json.nodes.length).toBe(v1json.nodes.length);
    v0json.nodes.forEach((n, i) => {
      const [x = 0, y = 0, z = 0] = v1json.nodes[i]!.translation ?? [];
      expect(n.name).toBe(v1json.nodes[i]!.name);
      expect(n.translation ?? [0, 0, 0], n.name).toEqual([x === 0 ? 0 : -x, y, z === 0 ? 0 : -z]);
    });
    // The character's left is -X and its eyes are in front of the head (-Z).
    const node = (name: string) => v0json.nodes.find((n) => n.name === name)!;
    expect(node("leftUpperArm").translation![0]).toBeLessThan(0);
    expect(node("leftEye").translation![2]).toBeLessThan(0);
  });

  it("has blend shape groups for every preset and custom expression, bound by mesh and morph index at 0..100", () => {
    const groups = v0.blendShapeMaster.blendShapeGroups ?? [];
    const presets = groups.map((g) => g.presetName).filter((p) => p !== "unknown");
    expect([...presets].sort()).toEqual(Object.keys(V0_SPEC.presets).sort());
    expect(groups.filter((g) => g.presetName === "unknown").map((g) => g.name)).toEqual([...V0_SPEC.custom]);
    for (const g of groups) {
      expect(g.isBinary, g.name).toBe(false);
      if (g.presetName === "neutral") continue;
      expect(g.binds?.length, g.name).toBeGreaterThan(0);
      for (const bind of g.binds ?? []) {
        const mesh = v0json.meshes[bind.mesh!]!;
        expect(mesh.name).toBe("Face");
        for (const p of mesh.primitives) expect(bind.index).toBeLessThan(p.targets!.length);
        expect(bind.weight).toBeGreaterThan(0);
        expect(bind.weight).toBeLessThanOrEqual(100);
        // Each group drives the morph of the expression it is read as (morphs are named after expressions).
        const expression =
          g.presetName === "unknown" ? g.name : V0_SPEC.presets[g.presetName as keyof typeof V0_SPEC.presets];
        expect(mesh.extras?.targetNames?.[bind.index!], g.name).toBe(expression);
      }
    }
  });

  it("has first-person settings and a bone look-at with linear degree maps", () => {
    const fp = v0.firstPerson;
    expect(nodeName(fp.firstPersonBone)).toBe("head");
    // Unity space: in front of the face is +z (three-vrm negates it into the -Z-facing glTF space).
    expect(fp.firstPersonBoneOffset?.z).toBeGreaterThan(0);
    expect(V0_SPEC.enums.lookAtTypeName).toContain(fp.lookAtTypeName);
    expect(fp.lookAtTypeName).toBe("Bone");
    for (const map of [
      fp.lookAtHorizontalInner,
      fp.lookAtHorizontalOuter,
      fp.lookAtVerticalDown,
      fp.lookAtVerticalUp,
    ])
      expect(map?.curve).toEqual(V0_SPEC.linearCurve);
    const annotated = (fp.meshAnnotations ?? []).map((a) => {
      expect(V0_SPEC.enums.firstPersonFlag).toContain(a.firstPersonFlag);
      return v0json.meshes[a.mesh!]!.name;
    });
    expect(annotated.sort()).toEqual(["Body", "Face"]);
  });

  it("has the 1.0 file's spring chains as bone groups, and its colliders in Unity space", () => {
    const sa = v0.secondaryAnimation;
    const springs = v1json.extensions.VRMC_springBone;
    expect(sa.boneGroups?.map((g) => g.comment)).toEqual(springs.springs?.map((s) => s.name));
    sa.boneGroups?.forEach((g, i) => {
      const spring = springs.springs![i]!;
      const joint = spring.joints[0]!;
      // The misspelt "stiffiness" is the 0.x schema's name; "stiffness" would be ignored.
      expect(g).not.toHaveProperty("stiffness");
      expect(g.stiffiness).toBe(joint.stiffness);
      expect([g.gravityPower, g.dragForce, g.hitRadius]).toEqual([
        joint.gravityPower,
        joint.dragForce,
        joint.hitRadius,
      ]);
      // A 0.x group names the chain's root; the 1.0 joints are that root and its descendants.
      expect(g.bones).toEqual([spring.joints[0]!.node]);
      for (const c of g.colliderGroups ?? []) expect(sa.colliderGroups?.[c]).toBeDefined();
    });
    const colliders = springs.colliders ?? [];
    expect(sa.colliderGroups?.length).toBe(colliders.length);
    sa.colliderGroups?.forEach((group, i) => {
      const c = colliders[i]!;
      expect(group.node).toBe(c.node);
      const [x = 0, y = 0, z = 0] = c.shape?.sphere?.offset ?? [];
      const { offset, radius } = group.colliders![0]!;
      // three-vrm reads (x, y, -z); that must be the 1.0 offset turned half a turn: (-x, y, -z).
      expect([offset!.x, offset!.y, -offset!.z!]).toEqual([x === 0 ? 0 : -x, y, -z]);
      expect(radius).toBe(c.shape?.sphere?.radius);
    });
  });

  it("has one MToon 0.x material per glTF material, decoding to the 1.0 file's look", () => {
    const props = v0.materialProperties;
    expect(props.map((p) => p.name)).toEqual(v0json.materials.map((m) => m.name));
    props.forEach((p, i) => {
      const gltf = v0json.materials[i]!;
      const v1 = v1json.materials[i]!.extensions!.VRMC_materials_mtoon!;
      const f = p.floatProperties!;
      const vec = p.vectorProperties!;
      expect(p.shader).toBe(V0_SPEC.shader);
      const blend = gltf.alphaMode === "BLEND";
      expect(p.renderQueue, p.name).toBe(blend ? 3000 : 2000);
      expect(p.keywordMap?._ALPHABLEND_ON === true, p.name).toBe(blend);
      expect(p.tagMap?.RenderType).toBe(blend ? "Transparent" : "Opaque");
      expect(f._CullMode === 0, p.name).toBe(gltf.doubleSided === true);
      const close = (a: number[], b: number[]) => {
        for (const [k, v] of a.entries()) expect(v, p.name).toBeCloseTo(b[k]!, 6);
      };
      close(
        (vec._Color as number[]).map((v, k) => (k === 3 ? v : gammaEOTF(v))),
        gltf.pbrMetallicRoughness?.baseColorFactor ?? [1, 1, 1, 1], // glTF's default is omitted
      );
      close((vec._ShadeColor as number[]).slice(0, 3).map(gammaEOTF), v1.shadeColorFactor!);
      close((vec._OutlineColor as number[]).slice(0, 3).map(gammaEOTF), v1.outlineColorFactor!);
      close((vec._RimColor as number[]).slice(0, 3).map(gammaEOTF), v1.parametricRimColorFactor!);
      // three-vrm's conversion of 0.x shading to 1.0 gives back the 1.0 material's factors.
      const toony = f._ShadeToony + (1 - f._ShadeToony) * (0.5 + 0.5 * f._ShadeShift);
      expect(toony).toBeCloseTo(v1.shadingToonyFactor!, 6);
      expect(-f._ShadeShift - (1 - toony)).toBeCloseTo(v1.shadingShiftFactor!, 6);
      expect(1 - f._IndirectLightIntensity).toBeCloseTo(v1.giEqualizationFactor!, 6);
      expect(0.01 * f._OutlineWidth).toBeCloseTo(v1.outlineWidthFactor!, 9);
      expect(["none", "worldCoordinates", "screenCoordinates"][f._OutlineWidthMode]).toBe(
        v1.outlineWidthMode,
      );
    });
  });

  describe("read by three-vrm", () => {
    // Captured, not silenced: three-vrm reports every schema problem it works around with console.warn.
    const warn = vi.spyOn(console, "warn");
    afterAll(() => warn.mockRestore());
    const load = async (data: Uint8Array) => {
      const loader = new GLTFLoader();
      loader.register((parser) => new VRMLoaderPlugin(parser));
      const buffer = data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer;
      return (await loader.parseAsync(buffer, "")).userData.vrm;
    };

    it("is a VRM 0 with the 1.0 file's expressions, humanoid bones and spring joints, without a warning", async () => {
      const vrm0 = await load(bytes);
      const vrm1 = await load(v1bytes);
      expect(warn.mock.calls).toEqual([]);
      expect(vrm0.meta.metaVersion).toBe("0");
      expect(vrm0.meta.title).toBe("Yui");
      const names = (vrm: typeof vrm0) =>
        vrm.expressionManager.expressions.map((e: { expressionName: string }) => e.expressionName).sort();
      expect(names(vrm0)).toEqual(names(vrm1));
      // Every emotion of the shipped vocabulary finds its expressions (happy through joy, sad through sorrow...).
      for (const emotion of EMOTION_IDS) {
        for (const name of Object.keys(DEFAULT_EXPRESSIONS[emotion]))
          expect(vrm0.expressionManager.getExpression(name), `${emotion}: ${name}`).not.toBeNull();
      }
      expect(Object.keys(vrm0.humanoid.humanBones).sort()).toEqual(
        Object.keys(vrm1.humanoid.humanBones).sort(),
      );
      const joints = (vrm: typeof vrm0): string[] =>
        [...vrm.springBoneManager.joints].map((j: { bone: { name: string } }) => j.bone.name).sort();
      // 0.x makes every descendant of a group's root a joint, the chain's tip too (swinging a virtual
      // 7 cm tail); 1.0 lists the joints, and the tip only ends the last segment.
      const tips = (v1json.extensions.VRMC_springBone.springs ?? []).map((s) =>
        nodeName(s.joints.at(-1)!.node),
      );
      expect(joints(vrm0)).toEqual([...joints(vrm1), ...tips].sort());
      expect(vrm0.lookAt.faceFront.toArray()).toEqual([0, 0, -1]);
    });
  });
});
