/**
 * Model loading (docs/avatar.md "API"): parsing a VRM or VRMA file (URL or bytes) with three-vrm's loader
 * plugins, the checks and messages of a failed load, and turning a parsed VRM into a model ready for the
 * stage (0.x turned to face the camera, its mixer and expression player, its idle layer playing).
 */
import { VRMLoaderPlugin, VRMUtils } from "@pixiv/three-vrm";
import { VRMAnimationLoaderPlugin } from "@pixiv/three-vrm-animation";
import * as THREE from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import { ExpressionPlayer } from "../expression-player.ts";
import { MODEL_FILE_ERRORS } from "../model-file.ts";
import type { StageVRM as VRM, StageVRMAnimation as VRMAnimation } from "../vrm-types.ts";
import { buildClip } from "./clips.ts";
import type { LoadedModel } from "./model.ts";

/** The messages of a failed load(), written once (file checks come from model-file.ts). */
export const LOAD_ERRORS = {
  unreadable: "Could not read this model file: ",
  notVrm: MODEL_FILE_ERRORS.notVrm,
  unreadableClip: "Could not read this animation file: ",
  noAnimation: "This file has no VRM animation (VRMC_vrm_animation).",
} as const;

export type Source = string | ArrayBuffer | Uint8Array;

const toBuffer = (bytes: ArrayBuffer | Uint8Array): ArrayBuffer =>
  bytes instanceof ArrayBuffer
    ? bytes
    : (bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);

export const describeError = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** A glTF loader that reads VRM models and VRM animations. */
export function createModelParser() {
  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser));
  loader.register((parser) => new VRMAnimationLoaderPlugin(parser));
  return (source: Source) =>
    typeof source === "string" ? loader.loadAsync(source) : loader.parseAsync(toBuffer(source), "");
}
export type ParsedFile = Awaited<ReturnType<ReturnType<typeof createModelParser>>>;

/** The first VRM animation of a parsed file, or the error of a file that has none. */
export function animationOf(gltf: ParsedFile): VRMAnimation {
  const anims = gltf.userData.vrmAnimations as VRMAnimation[] | undefined;
  if (!anims?.[0]) throw new Error(LOAD_ERRORS.noAnimation);
  return anims[0];
}

/** Frees a parsed file that will not be shown. */
export function discardParsed(gltf: ParsedFile): void {
  const vrm = gltf.userData.vrm as VRM | undefined;
  VRMUtils.deepDispose(vrm ? vrm.scene : gltf.scene);
}

/**
 * Prepares a parsed VRM for the stage: faces the camera (0.x turned, its spring bones re-seated), never culled,
 * looks at `gaze`, idle layer playing and pose settled. Throws LOAD_ERRORS.notVrm for a glTF without VRM.
 */
export function prepareModel(
  gltf: ParsedFile,
  gaze: THREE.Object3D,
  blend: { blendIn: number; blendOut: number },
): { model: LoadedModel; specVersion: "0" | "1" } {
  const vrm = gltf.userData.vrm as VRM | undefined;
  if (!vrm) {
    VRMUtils.deepDispose(gltf.scene);
    throw new Error(LOAD_ERRORS.notVrm);
  }
  const specVersion = vrm.meta.metaVersion === "0" ? "0" : "1";
  if (specVersion === "0") {
    VRMUtils.rotateVRM0(vrm);
    // The spring bones took their rest state (world-space tails) before the half turn: taken again
    // here, or the hair of every 0.x model whips through the head on its first frames.
    vrm.scene.updateMatrixWorld(true);
    vrm.springBoneManager?.reset();
  }
  vrm.scene.traverse((o: THREE.Object3D) => {
    o.frustumCulled = false;
  });
  if (vrm.lookAt) vrm.lookAt.target = gaze;
  vrm.scene.updateMatrixWorld(true);
  const hips = vrm.humanoid.getNormalizedBoneNode("hips");
  const hipsHeight = Math.max(0.1, hips?.getWorldPosition(new THREE.Vector3()).y ?? 1);
  const mixer = new THREE.AnimationMixer(vrm.scene);
  const expressions = new ExpressionPlayer(
    vrm.expressionManager ?? { getExpression: () => null, setValue: () => {} },
    blend,
  );
  const idle = mixer.clipAction(buildClip("idle", { duration: 1, bones: {} }, vrm));
  const model: LoadedModel = {
    vrm,
    // VRM 1.0 names the model in meta.name, VRM 0.x in meta.title.
    name: vrm.meta.name || vrm.meta.title || "model",
    mixer,
    idle,
    base: idle,
    baseStill: null,
    expressions,
    clips: new Map(),
    motion: null,
    hipsHeight,
    hipsRest: hips?.position.clone() ?? new THREE.Vector3(),
  };
  idle.setLoop(THREE.LoopRepeat, Number.POSITIVE_INFINITY).play();
  return { model, specVersion };
}

/** Removes a model from `scene` and frees it. */
export function disposeModel(m: LoadedModel, scene: THREE.Scene): void {
  m.mixer.stopAllAction();
  m.mixer.uncacheRoot(m.vrm.scene);
  scene.remove(m.vrm.scene);
  VRMUtils.deepDispose(m.vrm.scene);
}
