import type { WriterContext } from "@gltf-transform/core";
import type * as V0 from "@pixiv/types-vrm-0.0";
import type { HumanoidHumanBoneName } from "@pixiv/types-vrmc-vrm-1.0";
import {
  type CharacterModel,
  COLLIDERS,
  CUSTOM_EXPRESSIONS,
  type ExpressionDef,
  type Look,
  PRESET_EXPRESSIONS,
} from "./character.ts";
import { FACE_MORPHS } from "./face.ts";
import { HEAD_CENTRE } from "./head.ts";
import { buildDocument, jsonExtension, linear, META, MTOON_SHARED, writeGlb } from "./write-vrm.ts";

// The same character as a VRM 0.x file (the `VRM` glTF extension, as UniVRM 0.x writes it), so the stage's
// 0.x path is tested without a third-party model. The build ships only the 1.0 file.
//
// 0.x conventions followed here (and how @pixiv/three-vrm reads them back):
// - the model faces -Z in glTF space (UniVRM reverses Unity's Z); three-vrm's VRMUtils.rotateVRM0 turns it;
// - vectors stored outside glTF nodes (collider offsets, firstPersonBoneOffset) are in Unity space, so their
//   z is the negated glTF z;
// - colours in materialProperties are gamma-encoded (three-vrm linearises them with pow 2.2), outline widths
//   are in centimetres, morph bind weights run 0..100.

/** Version written in `exporterVersion`. */
export const VRM0_EXPORTER = "YUI-vrm-gen-1.0";

/** VRM 1.0 humanoid bone names that VRM 0.x spells differently (0.x counts thumb bones from the proximal). */
export const V0_BONE_NAMES: Partial<Record<HumanoidHumanBoneName, V0.HumanoidBoneName>> = {
  leftThumbMetacarpal: "leftThumbProximal",
  leftThumbProximal: "leftThumbIntermediate",
  leftThumbDistal: "leftThumbDistal",
  rightThumbMetacarpal: "rightThumbProximal",
  rightThumbProximal: "rightThumbIntermediate",
  rightThumbDistal: "rightThumbDistal",
};

/** The 0.x name of a VRM 1.0 humanoid bone. */
export function v0BoneName(name: HumanoidHumanBoneName): V0.HumanoidBoneName {
  return V0_BONE_NAMES[name] ?? (name as V0.HumanoidBoneName);
}

/** VRM 1.0 preset expressions and the 0.x blend shape preset of each; 1.0 presets missing here become custom groups. */
export const V0_PRESETS: Record<string, V0.BlendShapePresetName> = {
  neutral: "neutral",
  happy: "joy",
  angry: "angry",
  sad: "sorrow",
  relaxed: "fun",
  aa: "a",
  ih: "i",
  ou: "u",
  ee: "e",
  oh: "o",
  blink: "blink",
  blinkLeft: "blink_l",
  blinkRight: "blink_r",
};

/** The 0.x meta of the character: the same work and the same permissions as the 1.0 meta. */
export const META_V0: V0.Meta = {
  title: META.name,
  version: META.version,
  author: META.authors.join(", "),
  contactInformation: "",
  reference: "",
  allowedUserName: "Everyone",
  violentUssageName: "Disallow",
  sexualUssageName: "Disallow",
  commercialUssageName: "Allow",
  otherPermissionUrl: "",
  // VRM 0.x has no VRM Public License entry: it is named as "Other" with its URL.
  licenseName: "Other",
  otherLicenseUrl: META.licenseUrl,
};

// Gamma-encodes a linear colour the way three-vrm's v0 compatibility layer decodes it (pow 2.2).
const gamma = (rgb: [number, number, number]) => rgb.map((v) => v ** (1 / 2.2)) as [number, number, number];

// Shading in MToon 0.x terms: the inverse of three-vrm's conversion
// toony1 = lerp(toony0, 1, 0.5 + 0.5 * shift0), shift1 = -shift0 - (1 - toony1).
function v0Shading(shift1: number, toony1: number) {
  const shift = -shift1 - (1 - toony1);
  const k = 0.5 + 0.5 * shift;
  return { shift, toony: (toony1 - k) / (1 - k) };
}

/** MToon 0.x properties for a palette look: the same look as the 1.0 MToon material of the same key. */
export function mtoon0(name: string, look: Look): V0.Material {
  const blend = look.alpha !== undefined;
  const outline = look.outline > 0;
  const { shift, toony } = v0Shading(MTOON_SHARED.shadingShift, MTOON_SHARED.shadingToony);
  const rim = look.rim ?? 0;
  const tiling = [0, 0, 1, 1];
  return {
    name,
    shader: "VRM/MToon",
    renderQueue: blend ? 3000 : 2000,
    floatProperties: {
      _Cutoff: 0.5,
      _BumpScale: 1,
      _ReceiveShadowRate: 1,
      _ShadingGradeRate: 1,
      _ShadeShift: shift,
      _ShadeToony: toony,
      _LightColorAttenuation: 0,
      _IndirectLightIntensity: 1 - MTOON_SHARED.giEqualization,
      _RimLightingMix: 1,
      _RimFresnelPower: MTOON_SHARED.rimFresnelPower,
      _RimLift: MTOON_SHARED.rimLift,
      _OutlineWidth: look.outline * 100,
      _OutlineScaledMaxDistance: 1,
      _OutlineLightingMix: 1,
      _UvAnimScrollX: 0,
      _UvAnimScrollY: 0,
      _UvAnimRotation: 0,
      _MToonVersion: 38,
      _DebugMode: 0,
      _BlendMode: blend ? 2 : 0,
      _OutlineWidthMode: outline ? 1 : 0,
      _OutlineColorMode: 1,
      _CullMode: look.doubleSided ? 0 : 2,
      _OutlineCullMode: 1,
      _SrcBlend: blend ? 5 : 1,
      _DstBlend: blend ? 10 : 0,
      _ZWrite: blend ? 0 : 1,
    },
    vectorProperties: {
      _Color: [...gamma(linear(look.base)), look.alpha ?? 1],
      _ShadeColor: [...gamma(linear(look.shade)), 1],
      _MainTex: tiling,
      _ShadeTexture: tiling,
      _BumpMap: tiling,
      _ReceiveShadowTexture: tiling,
      _ShadingGradeTexture: tiling,
      _RimColor: [...gamma([rim, rim, rim]), 1], // the 1.0 rim colour is white (linear 1) times rim
      _RimTexture: tiling,
      _SphereAdd: tiling,
      _EmissionColor: [0, 0, 0, 1],
      _EmissionMap: tiling,
      _OutlineWidthTexture: tiling,
      _OutlineColor: [...gamma(linear(look.outlineColor ?? "#000000")), 1],
      _UvAnimMaskTexture: tiling,
    },
    textureProperties: {},
    keywordMap: {
      ...(blend ? { _ALPHABLEND_ON: true } : {}),
      ...(outline ? { MTOON_OUTLINE_WIDTH_WORLD: true, MTOON_OUTLINE_COLOR_MIXED: true } : {}),
    },
    tagMap: { RenderType: blend ? "Transparent" : "Opaque" },
  };
}

/** A 0.x degree map with the linear curve, the only one three-vrm (and most runtimes) support. */
const degreeMap = (yRange: number): V0.FirstPersonDegreeMap => ({
  curve: [0, 0, 0, 1, 1, 1, 1, 0],
  xRange: 90,
  yRange,
});

/** Builds the VRM 0.x GLB of a generated character. */
export async function writeVrm0(model: CharacterModel): Promise<Uint8Array> {
  const { doc, nodes, bodyMesh, faceMesh, materials } = buildDocument(model, -1);
  const node = (context: WriterContext, bone: string) => context.nodeIndexMap.get(nodes.get(bone)!)!;
  const head = model.bones.find((b) => b.name === "head")!;

  const group = (context: WriterContext, name: string, def: ExpressionDef): V0.BlendShapeGroup => ({
    name,
    presetName: V0_PRESETS[name] ?? "unknown",
    binds: def.morphs.map(([morph, weight]) => ({
      mesh: context.meshIndexMap.get(faceMesh)!,
      index: FACE_MORPHS.indexOf(morph),
      weight: weight * 100,
    })),
    materialValues: [],
    isBinary: false,
  });

  const VrmExt = jsonExtension("VRM", (context) => {
    const json = context.jsonDoc.json;
    // materialProperties is read by material index, so it follows the glTF material order exactly.
    const materialProperties: V0.Material[] = [];
    for (const [key, material] of materials) {
      materialProperties[context.materialIndexMap.get(material)!] = mtoon0(key, model.palette[key]);
    }
    const vrm: V0.VRM = {
      exporterVersion: VRM0_EXPORTER,
      specVersion: "0.0",
      meta: META_V0,
      humanoid: {
        humanBones: model.bones
          .filter((b) => b.humanoid)
          .map((b) => ({
            bone: v0BoneName(b.name as HumanoidHumanBoneName),
            node: node(context, b.name),
            useDefaultValues: true,
          })),
        armStretch: 0.05,
        legStretch: 0.05,
        upperArmTwist: 0.5,
        lowerArmTwist: 0.5,
        upperLegTwist: 0.5,
        lowerLegTwist: 0.5,
        feetSpacing: 0,
        hasTranslationDoF: false,
      },
      firstPerson: {
        firstPersonBone: node(context, "head"),
        // Unity space: +z is in front of the face.
        firstPersonBoneOffset: { x: 0, y: HEAD_CENTRE.y - 0.015 - head.pos[1], z: 0.09 },
        meshAnnotations: [
          { mesh: context.meshIndexMap.get(bodyMesh)!, firstPersonFlag: "Auto" },
          { mesh: context.meshIndexMap.get(faceMesh)!, firstPersonFlag: "ThirdPersonOnly" },
        ],
        lookAtTypeName: "Bone",
        lookAtHorizontalInner: degreeMap(8),
        lookAtHorizontalOuter: degreeMap(10),
        lookAtVerticalDown: degreeMap(6),
        lookAtVerticalUp: degreeMap(6),
      },
      blendShapeMaster: {
        blendShapeGroups: Object.entries({ ...PRESET_EXPRESSIONS, ...CUSTOM_EXPRESSIONS }).map(
          ([name, def]) => group(context, name, def),
        ),
      },
      secondaryAnimation: {
        // One collider group per node; offsets in Unity space (glTF x and z turned, then z reversed).
        colliderGroups: COLLIDERS.map((c) => ({
          node: node(context, c.bone),
          colliders: [{ offset: { x: -c.offset[0], y: c.offset[1], z: c.offset[2] }, radius: c.radius }],
        })),
        boneGroups: model.springs.map((chain) => ({
          comment: chain.name,
          stiffiness: chain.stiffness,
          gravityPower: chain.gravityPower,
          gravityDir: { x: 0, y: -1, z: 0 },
          dragForce: chain.dragForce,
          hitRadius: chain.hitRadius,
          // A 0.x spring names its root; every descendant of the root is a joint.
          bones: [node(context, `hair_${chain.name}_0`)],
          colliderGroups: COLLIDERS.map((_, i) => i),
        })),
      },
      materialProperties,
    };
    json.extensions = { ...json.extensions, VRM: vrm };
  });

  return writeGlb(doc, [VrmExt]);
}
