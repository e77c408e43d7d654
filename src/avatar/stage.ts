import { VRMLoaderPlugin, VRMUtils } from "@pixiv/three-vrm";
import { createVRMAnimationClip, VRMAnimationLoaderPlugin } from "@pixiv/three-vrm-animation";
import * as THREE from "three";
import { GLTFLoader } from "three/examples/jsm/loaders/GLTFLoader.js";
import type { Cue } from "./cues.ts";
import { DEFAULT_EXPRESSIONS, type ExpressionWeights } from "./default-expressions.ts";
import { ExpressionPlayer } from "./expression-player.ts";
import { type FrameNeed, frameInterval } from "./frame-policy.ts";
import { checkModelBytes, MODEL_FILE_ERRORS } from "./model-file.ts";
import {
  AMBIENT_MOTIONS,
  BASE_POSE,
  DEFAULT_MOTIONS,
  type Deg3,
  keysWithRest,
  PROCEDURAL_CLIPS,
  type ProceduralClip,
} from "./motions.ts";
import type {
  StageVRM as VRM,
  StageVRMAnimation as VRMAnimation,
  HumanBoneName as VRMHumanBoneName,
} from "./vrm-types.ts";

/** The VRM mouth shapes lip sync drives. */
export const MOUTH_SHAPES = ["aa", "ih", "ou", "ee", "oh"] as const;
export type MouthShape = (typeof MOUTH_SHAPES)[number];

/** How the camera frames the character. */
export type Framing = "full" | "bust";

/** Options of createStage; every field has a default. */
export interface StageOptions {
  /** Emotion id -> expression weights (the vocabulary's `expression`); default DEFAULT_EXPRESSIONS. */
  emotions?: Record<string, ExpressionWeights>;
  /** Motion id -> clip id (the vocabulary's `clip`); default DEFAULT_MOTIONS. */
  motions?: Record<string, string>;
  /** Expression blend-in and blend-out times in seconds (default 0.25 / 0.4). */
  blendIn?: number;
  blendOut?: number;
  /** Motion crossfade time in seconds (default 0.3). */
  crossfade?: number;
  framing?: Framing;
  /** Idle life: breathing, blinking, weight shifts, ambient motions (default true). */
  idle?: boolean;
  /** Drive frames yourself with step() instead of requestAnimationFrame (tests, benchmarks). */
  manual?: boolean;
  /** Random source for idle timing (default Math.random). */
  random?: () => number;
  /** Device pixel ratio cap (default 2). */
  maxPixelRatio?: number;
  /** Motion played when the character is clicked; null turns clicks off (default "poke_reaction"). */
  pokeMotion?: string | null;
  /** Follow the pointer over the canvas with the gaze (default true); setPointer works either way. */
  trackPointer?: boolean;
  /** Multisample antialiasing (default true). */
  antialias?: boolean;
}

/** What load() did: the model is shown, or a newer load overtook it and it was discarded. */
export type LoadResult =
  | { status: "loaded"; name: string; specVersion: "0" | "1" }
  | { status: "superseded" };

/** What playCue() did with each field of the cue. */
export interface CueResult {
  emotion: "played" | "unknown" | "none";
  motion: "played" | "unknown" | "none";
}

/** A snapshot of the stage's state, for tests and diagnostics. */
export interface StageInspection {
  loaded: string | null;
  running: boolean;
  frames: number;
  /** The frame policy's wait before the next frame now: 0 full rate, milliseconds for idle life, null none. */
  interval: number | null;
  emotion: string | null;
  motion: string | null;
  motionTime: number;
  /** Value each expression was given this frame (before override rules). */
  expressions: Record<string, number>;
  /** Morph-target influences per mesh name, after override rules (what is drawn). */
  morphs: Record<string, number[]>;
  renderer: { geometries: number; textures: number; programs: number; calls: number; triangles: number };
  camera: { position: [number, number, number]; target: [number, number, number] };
  /** Rotations (x, y, z, w) of the main normalized humanoid bones. */
  bones: Record<string, [number, number, number, number]>;
  events: StageEvent[];
}

/** Something the stage started, with the frame it happened on. */
export interface StageEvent {
  type: "emotion" | "motion" | "load";
  id: string;
  frame: number;
}

/** The stage: one canvas showing one VRM character. */
export interface Stage {
  /** Loads a VRM (URL or file bytes); a broken file rejects with a clear message and the previous model stays. */
  load(source: string | ArrayBuffer | Uint8Array): Promise<LoadResult>;
  /** Loads a VRMA file as clip `clipId`, usable by motions mapped to it. */
  loadClip(clipId: string, source: string | ArrayBuffer | Uint8Array): Promise<void>;
  /** Plays a cue's emotion and motion now. */
  playCue(cue: Cue): CueResult;
  /** Sets an expression channel directly (lip sync, blink when idle life is off). */
  setExpression(name: string, weight: number): void;
  /** Lip sync: sets the five VRM mouth shapes at once (a shape left out is shut). */
  setMouth(weights: Partial<Record<MouthShape, number>>): void;
  /** Points the gaze at a canvas position in normalized device coordinates (-1..1); null looks at the viewer. */
  setPointer(x: number | null, y?: number): void;
  /** She is being dragged (full frame rate until released and settled). */
  setDragging(on: boolean): void;
  /** The shell says her window is hidden or fully covered: no frames until it is shown again. */
  setOccluded(on: boolean): void;
  /** Advances time by `dt` seconds and renders one frame (manual mode, or to force a frame). */
  step(dt: number): void;
  /** Resizes the drawing buffer to the canvas's CSS size. */
  resize(): void;
  inspect(): StageInspection;
  /** Releases every GPU and DOM resource; the stage is unusable afterwards. */
  dispose(): void;
  readonly renderer: THREE.WebGLRenderer;
}

interface LoadedModel {
  vrm: VRM;
  name: string;
  mixer: THREE.AnimationMixer;
  idle: THREE.AnimationAction;
  expressions: ExpressionPlayer;
  clips: Map<string, THREE.AnimationClip>;
  motion: {
    id: string;
    action: THREE.AnimationAction;
    time: number;
    duration: number;
    returning: boolean;
  } | null;
}

/** The messages of a failed load(), written once (file checks come from model-file.ts). */
export const LOAD_ERRORS = {
  unreadable: "Could not read this model file: ",
  notVrm: MODEL_FILE_ERRORS.notVrm,
  unreadableClip: "Could not read this animation file: ",
  noAnimation: "This file has no VRM animation (VRMC_vrm_animation).",
} as const;

const D2R = Math.PI / 180;
const INSPECTED_BONES: VRMHumanBoneName[] = [
  "hips",
  "spine",
  "head",
  "leftUpperArm",
  "rightUpperArm",
  "leftLowerArm",
  "rightLowerArm",
];
/**
 * A rotation of a normalized humanoid bone of `vrm`, given as Euler degrees for a model facing +Z (VRM 1.0).
 * VRM 0.x normalized bones face -Z, so the rotation is mirrored there: x and z negated, as
 * three-vrm-animation does for VRMA clips (without it a 0.x model raises its arms in the resting pose).
 */
const quat = (vrm: VRM, [x, y, z]: Deg3) => {
  const q = new THREE.Quaternion().setFromEuler(new THREE.Euler(x * D2R, y * D2R, z * D2R));
  return vrm.meta.metaVersion === "0" ? q.set(-q.x, q.y, -q.z, q.w) : q;
};

/** Turns a data clip into a three.js clip on `vrm`'s normalized bones, holding the base pose for bones it leaves alone. */
function buildClip(name: string, data: ProceduralClip, vrm: VRM): THREE.AnimationClip {
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
  const hips = vrm.humanoid.getNormalizedBoneNode("hips");
  if (hips) {
    const rest = hips.position.clone();
    const keys = keysWithRest(data.hipsOffset, [0, 0, 0] as Deg3, data.duration);
    // Offsets are authored for a model facing +Z; a VRM 0.x model faces -Z in its own space.
    const facing = vrm.meta.metaVersion === "0" ? -1 : 1;
    tracks.push(
      new THREE.VectorKeyframeTrack(
        `${hips.name}.position`,
        keys.map(([t]) => t),
        keys.flatMap(([, [x, y, z]]) => [rest.x + facing * x, rest.y + y, rest.z + facing * z]),
      ),
    );
  }
  return new THREE.AnimationClip(name, data.duration, tracks);
}

/** Adds base-pose tracks to a file clip for humanoid bones it does not animate (so they never fall back to the T-pose). */
function completeWithBase(clip: THREE.AnimationClip, vrm: VRM): THREE.AnimationClip {
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

const toBuffer = (bytes: ArrayBuffer | Uint8Array): ArrayBuffer =>
  bytes instanceof ArrayBuffer
    ? bytes
    : (bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);

/** Creates the avatar stage on `canvas` (transparent background). */
export function createStage(canvas: HTMLCanvasElement, options: StageOptions = {}): Stage {
  const opts = {
    emotions: (options.emotions ?? DEFAULT_EXPRESSIONS) as Readonly<Record<string, ExpressionWeights>>,
    motions: options.motions ?? DEFAULT_MOTIONS,
    blendIn: options.blendIn ?? 0.25,
    blendOut: options.blendOut ?? 0.4,
    crossfade: options.crossfade ?? 0.3,
    framing: options.framing ?? "full",
    idle: options.idle ?? true,
    manual: options.manual ?? false,
    random: options.random ?? Math.random,
    maxPixelRatio: options.maxPixelRatio ?? 2,
    pokeMotion: options.pokeMotion === undefined ? "poke_reaction" : options.pokeMotion,
    trackPointer: options.trackPointer ?? true,
  };
  const renderer = new THREE.WebGLRenderer({
    canvas,
    alpha: true,
    antialias: options.antialias ?? true,
    premultipliedAlpha: true,
  });
  renderer.setClearColor(0x000000, 0);
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(28, 1, 0.05, 50);
  const cameraTarget = new THREE.Vector3(0, 1, 0);
  const light = new THREE.DirectionalLight(0xffffff, Math.PI * 0.7);
  light.position.set(0.6, 1.4, 2.2);
  scene.add(light, new THREE.AmbientLight(0xffffff, Math.PI * 0.3));
  const gaze = new THREE.Object3D();
  scene.add(gaze);

  const loader = new GLTFLoader();
  loader.register((parser) => new VRMLoaderPlugin(parser));
  loader.register((parser) => new VRMAnimationLoaderPlugin(parser));

  const fileClips = new Map<string, VRMAnimation>();
  const clipFromFile = (anim: VRMAnimation, vrm: VRM): THREE.AnimationClip =>
    createVRMAnimationClip(anim, vrm);
  let model: LoadedModel | null = null;
  let loadSeq = 0;
  let frames = 0;
  let running = false;
  let raf = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  // What the frame policy reads (frame-policy.ts); times are performance.now() seconds.
  let occluded = false;
  let dragging = false;
  let mouthOpen = false;
  let emotionAt = Number.NEGATIVE_INFINITY;
  let pointerAt = Number.NEGATIVE_INFINITY;
  let movedAt = Number.NEGATIVE_INFINITY;
  let disposed = false;
  let lastTime = 0;
  let emotion: string | null = null;
  let pointer: THREE.Vector2 | null = null;
  const events: StageEvent[] = [];
  const life = { t: 0, nextBlink: 2, blinkT: -1, nextAmbient: 14 };
  // Idle life adds small rotations on top of the animation. The mixer only writes a bone when its
  // animated value changes, so the pre-offset rotations are kept and put back before each update.
  const animated = new Map<THREE.Object3D, THREE.Quaternion>();

  const resize = () => {
    const w = Math.max(1, canvas.clientWidth || canvas.width);
    const h = Math.max(1, canvas.clientHeight || canvas.height);
    renderer.setPixelRatio(Math.min(opts.maxPixelRatio, globalThis.devicePixelRatio || 1));
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    if (model) frame(model.vrm);
  };

  // Bounds of each model in its idle stance (skinned vertices, not the T-pose), measured once at load
  // so framing never jumps with a motion.
  const boundsCache = new WeakMap<VRM, { box: THREE.Box3; head: THREE.Vector3 | undefined }>();
  const bounds = (vrm: VRM) => {
    let b = boundsCache.get(vrm);
    if (!b) {
      vrm.scene.updateMatrixWorld(true);
      b = {
        box: new THREE.Box3().setFromObject(vrm.scene, true),
        head: vrm.humanoid.getNormalizedBoneNode("head")?.getWorldPosition(new THREE.Vector3()),
      };
      boundsCache.set(vrm, b);
    }
    return b;
  };

  /** Frames the model by its idle-stance bounds: the whole body, or head and shoulders. */
  const frame = (vrm: VRM) => {
    const { box, head } = bounds(vrm);
    const size = box.getSize(new THREE.Vector3());
    const vfov = camera.fov * D2R;
    let height = size.y * 1.08;
    let centreY = (box.min.y + box.max.y) / 2;
    if (opts.framing === "bust" && head) {
      const top = box.max.y;
      const bottom = head.y - (top - head.y) * 0.75;
      height = (top - bottom) * 1.15;
      centreY = (top + bottom) / 2;
    }
    // Fit the height, and also the width (hair, hands) on narrow canvases.
    const width = size.x * 1.1;
    const distH = height / 2 / Math.tan(vfov / 2);
    const distW = width / 2 / Math.tan(vfov / 2) / camera.aspect;
    const dist = Math.max(distH, distW, 0.3);
    cameraTarget.set((box.min.x + box.max.x) / 2, centreY, (box.min.z + box.max.z) / 2);
    camera.position.set(cameraTarget.x, cameraTarget.y, cameraTarget.z + dist);
    camera.near = Math.max(0.01, dist / 50);
    camera.far = dist * 10;
    camera.lookAt(cameraTarget);
    camera.updateProjectionMatrix();
  };

  const disposeModel = (m: LoadedModel) => {
    m.mixer.stopAllAction();
    m.mixer.uncacheRoot(m.vrm.scene);
    scene.remove(m.vrm.scene);
    VRMUtils.deepDispose(m.vrm.scene);
  };

  const clipFor = (m: LoadedModel, clipId: string): THREE.AnimationClip | null => {
    const cached = m.clips.get(clipId);
    if (cached) return cached;
    const data = PROCEDURAL_CLIPS[clipId];
    const file = fileClips.get(clipId);
    const clip = file
      ? completeWithBase(clipFromFile(file, m.vrm), m.vrm)
      : data
        ? buildClip(clipId, data, m.vrm)
        : null;
    if (clip) m.clips.set(clipId, clip);
    return clip;
  };

  const startMotion = (m: LoadedModel, motionId: string): boolean => {
    const clipId = opts.motions[motionId];
    const clip = clipId ? clipFor(m, clipId) : null;
    if (!clip) return false;
    if (m.motion) m.motion.action.fadeOut(opts.crossfade);
    const action = m.mixer.clipAction(clip);
    action.reset().setLoop(THREE.LoopOnce, 1);
    action.clampWhenFinished = true;
    action.setEffectiveWeight(1).fadeIn(opts.crossfade).play();
    m.idle.fadeOut(opts.crossfade);
    m.motion = { id: motionId, action, time: 0, duration: clip.duration, returning: false };
    events.push({ type: "motion", id: motionId, frame: frames });
    return true;
  };

  const updateMotion = (m: LoadedModel, dt: number) => {
    const cur = m.motion;
    if (!cur) return;
    cur.time += dt;
    // Return to idle: crossfade out while the clip's last beat (its return to the base pose) plays.
    if (cur.time >= cur.duration - opts.crossfade && !cur.returning) {
      cur.returning = true;
      m.idle.reset().setEffectiveWeight(1).fadeIn(opts.crossfade).play();
      cur.action.fadeOut(opts.crossfade);
    }
    if (cur.time >= cur.duration + opts.crossfade) {
      cur.action.stop();
      m.motion = null;
    }
  };

  /** Idle life on top of the animation: breathing, a slow weight shift, blinking, ambient motions, gaze. */
  const updateLife = (m: LoadedModel, dt: number) => {
    life.t += dt;
    const t = life.t;
    const h = m.vrm.humanoid;
    const add = (bone: VRMHumanBoneName, x: number, y: number, z: number) => {
      const node = h.getNormalizedBoneNode(bone);
      if (!node) return;
      if (!animated.has(node)) animated.set(node, node.quaternion.clone());
      node.quaternion.multiply(quat(m.vrm, [x, y, z]));
    };
    if (opts.idle) {
      const breath = Math.sin(t * 2 * Math.PI * 0.23);
      add("spine", breath * 0.8, 0, 0);
      add("chest", breath * 1.2, 0, 0);
      add("upperChest", breath * 0.8, 0, 0);
      const sway = Math.sin(t * 2 * Math.PI * 0.07);
      add("hips", 0, sway * 2, sway * 1.2);
      add("spine", 0, -sway, -sway * 1.5);
      add("leftUpperArm", 0, 0, breath * 1.5);
      add("rightUpperArm", 0, 0, -breath * 1.5);
      // Natural blinking: a quick close and a slower open, every 2-6 s, sometimes twice.
      if (life.blinkT < 0 && t >= life.nextBlink) life.blinkT = 0;
      if (life.blinkT >= 0) {
        life.blinkT += dt;
        const k = life.blinkT < 0.06 ? life.blinkT / 0.06 : Math.max(0, 1 - (life.blinkT - 0.06) / 0.1);
        m.expressions.setChannel("blink", k);
        if (life.blinkT > 0.16) {
          life.blinkT = -1;
          life.nextBlink = t + (opts.random() < 0.15 ? 0.25 : 2 + opts.random() * 4);
        }
      }
      if (!m.motion && t >= life.nextAmbient) {
        const pick = AMBIENT_MOTIONS[Math.floor(opts.random() * AMBIENT_MOTIONS.length)]!;
        startMotion(m, pick);
        life.nextAmbient = t + 18 + opts.random() * 20;
      }
    }
    // Gaze: the eyes follow the pointer (or the viewer), the head turns a little with them.
    const head = h.getNormalizedBoneNode("head");
    if (head) {
      const headPos = head.getWorldPosition(new THREE.Vector3());
      if (pointer) {
        const ray = new THREE.Vector3(pointer.x, pointer.y, 0.5)
          .unproject(camera)
          .sub(camera.position)
          .normalize();
        const dist = camera.position.distanceTo(headPos) * 0.8;
        gaze.position.copy(camera.position).addScaledVector(ray, dist);
      } else {
        gaze.position.copy(camera.position);
      }
      const dir = gaze.position.clone().sub(headPos).normalize();
      const yaw = THREE.MathUtils.clamp(Math.atan2(dir.x, dir.z) / D2R, -30, 30);
      const pitch = THREE.MathUtils.clamp(-Math.asin(dir.y) / D2R, -20, 20);
      add("head", pitch * 0.3, yaw * 0.3, 0);
      add("neck", pitch * 0.15, yaw * 0.15, 0);
    }
  };

  const step = (dt: number) => {
    if (disposed) return;
    const m = model;
    if (m) {
      for (const [node, q] of animated) node.quaternion.copy(q);
      animated.clear();
      m.mixer.update(dt);
      updateMotion(m, dt);
      updateLife(m, dt);
      m.expressions.update(dt);
      m.vrm.update(dt);
    }
    renderer.render(scene, camera);
    frames++;
  };

  const clock = () => performance.now() / 1000;
  /** What the character is doing now, for the frame policy. */
  const need = (): FrameNeed => {
    const now = clock();
    const m = model;
    const n: FrameNeed = {
      hidden: document.hidden || occluded,
      motion: !!m?.motion,
      expression: now - emotionAt < Math.max(opts.blendIn, opts.blendOut),
      blink: life.blinkT >= 0,
      speaking: mouthOpen,
      // The gaze follows the pointer at once: a moving pointer turns her head.
      dragged: dragging || now - pointerAt < 0.2,
      sinceMoved: 0,
    };
    if (n.motion || n.dragged) movedAt = now;
    n.sinceMoved = now - movedAt;
    return n;
  };
  const loop = (now: number) => {
    raf = 0;
    if (!running) return;
    // Idle frames come a tenth of a second apart; a longer gap (a stalled page) is not replayed.
    const dt = lastTime ? Math.min(0.25, (now - lastTime) / 1000) : 1 / 60;
    lastTime = now;
    step(dt);
    schedule();
  };
  /** Asks the frame policy when to draw next: the next display frame, after a wait, or not until woken. */
  const schedule = () => {
    const interval = frameInterval(need());
    if (interval === null) stop();
    else if (interval === 0) raf = requestAnimationFrame(loop);
    else
      timer = setTimeout(() => {
        timer = undefined;
        if (running) raf = requestAnimationFrame(loop);
      }, interval);
  };
  const start = () => {
    if (running || disposed || opts.manual || document.hidden || occluded) return;
    running = true;
    lastTime = 0;
    raf = requestAnimationFrame(loop);
  };
  const stop = () => {
    running = false;
    cancelAnimationFrame(raf);
    raf = 0;
    clearTimeout(timer);
    timer = undefined;
  };
  /** Something started that needs full rate: draw on the next display frame instead of after the idle wait. */
  const wake = () => {
    if (!running) return start();
    if (timer === undefined) return;
    clearTimeout(timer);
    timer = undefined;
    raf = requestAnimationFrame(loop);
  };
  // Idle down while hidden: no frames at all until the window shows again.
  const onVisibility = () => (document.hidden || occluded ? stop() : start());
  document.addEventListener("visibilitychange", onVisibility);
  const observer = typeof ResizeObserver === "function" ? new ResizeObserver(() => resize()) : null;
  observer?.observe(canvas);

  const toNdc = (e: PointerEvent) => {
    const r = canvas.getBoundingClientRect();
    return new THREE.Vector2(
      ((e.clientX - r.left) / r.width) * 2 - 1,
      -((e.clientY - r.top) / r.height) * 2 + 1,
    );
  };
  const onMove = (e: PointerEvent) => {
    if (!opts.trackPointer) return;
    pointer = toNdc(e);
    pointerAt = clock();
    wake();
  };
  const onLeave = () => {
    if (!opts.trackPointer) return;
    pointer = null;
    pointerAt = clock();
    wake();
  };
  // A click on the character (not on the transparent background) plays the reactive motion.
  const raycaster = new THREE.Raycaster();
  const onDown = (e: PointerEvent) => {
    const m = model;
    if (!m || !opts.pokeMotion) return;
    raycaster.setFromCamera(toNdc(e), camera);
    if (raycaster.intersectObject(m.vrm.scene, true).length > 0 && startMotion(m, opts.pokeMotion)) wake();
  };
  canvas.addEventListener("pointermove", onMove);
  canvas.addEventListener("pointerleave", onLeave);
  canvas.addEventListener("pointerdown", onDown);

  const parse = async (source: string | ArrayBuffer | Uint8Array) =>
    typeof source === "string" ? loader.loadAsync(source) : loader.parseAsync(toBuffer(source), "");

  const describe = (err: unknown) => (err instanceof Error ? err.message : String(err));

  const stage: Stage = {
    renderer,
    async load(source) {
      const id = ++loadSeq;
      if (typeof source !== "string") {
        // Bytes from the user: a quick structural check gives a clearer message than the glTF parser.
        const check = checkModelBytes(source instanceof Uint8Array ? source : new Uint8Array(source));
        if (!check.ok) throw new Error(check.error);
      }
      let gltf: Awaited<ReturnType<typeof parse>>;
      try {
        gltf = await parse(source);
      } catch (err) {
        if (id !== loadSeq) return { status: "superseded" };
        throw new Error(`${LOAD_ERRORS.unreadable}${describe(err)}`);
      }
      const vrm = gltf.userData.vrm as VRM | undefined;
      if (id !== loadSeq || disposed) {
        if (vrm) VRMUtils.deepDispose(vrm.scene);
        else VRMUtils.deepDispose(gltf.scene);
        return { status: "superseded" };
      }
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
      const mixer = new THREE.AnimationMixer(vrm.scene);
      const expressions = new ExpressionPlayer(
        vrm.expressionManager ?? { getExpression: () => null, setValue: () => {} },
        { blendIn: opts.blendIn, blendOut: opts.blendOut },
      );
      const next: LoadedModel = {
        vrm,
        // VRM 1.0 names the model in meta.name, VRM 0.x in meta.title.
        name: vrm.meta.name || vrm.meta.title || "model",
        mixer,
        idle: mixer.clipAction(buildClip("idle", { duration: 1, bones: {} }, vrm)),
        expressions,
        clips: new Map(),
        motion: null,
      };
      next.idle.setLoop(THREE.LoopRepeat, Number.POSITIVE_INFINITY).play();
      if (model) disposeModel(model);
      animated.clear();
      model = next;
      scene.add(vrm.scene);
      if (emotion) expressions.setEmotion(opts.emotions[emotion] ?? {});
      // Settle the pose before measuring and before the first visible frame.
      mixer.update(0);
      vrm.update(0);
      frame(vrm);
      events.push({ type: "load", id: next.name, frame: frames });
      start();
      return { status: "loaded", name: next.name, specVersion };
    },
    async loadClip(clipId, source) {
      const gltf = await parse(source).catch((err: unknown) => {
        throw new Error(`${LOAD_ERRORS.unreadableClip}${describe(err)}`);
      });
      const anims = gltf.userData.vrmAnimations as VRMAnimation[] | undefined;
      if (!anims?.[0]) throw new Error(LOAD_ERRORS.noAnimation);
      fileClips.set(clipId, anims[0]);
      model?.clips.delete(clipId);
    },
    playCue(cue) {
      const result: CueResult = { emotion: "none", motion: "none" };
      if (cue.emotion_id !== undefined) {
        const weights = opts.emotions[cue.emotion_id];
        if (weights) {
          emotion = cue.emotion_id;
          model?.expressions.setEmotion(weights);
          emotionAt = clock();
          events.push({ type: "emotion", id: cue.emotion_id, frame: frames });
          result.emotion = "played";
        } else result.emotion = "unknown";
      }
      if (cue.motion_id !== undefined) {
        const known = cue.motion_id in opts.motions;
        result.motion = known && model && startMotion(model, cue.motion_id) ? "played" : "unknown";
        if (known && !model) result.motion = "played";
      }
      if (result.emotion === "played" || result.motion === "played") wake();
      return result;
    },
    setExpression(name, weight) {
      model?.expressions.setChannel(name, weight);
      // A channel set from outside (lip sync, a blink when idle life is off) shows on the next display frame.
      wake();
    },
    setMouth(weights) {
      for (const k of MOUTH_SHAPES) model?.expressions.setChannel(k, weights[k] ?? 0);
      mouthOpen = MOUTH_SHAPES.some((k) => (weights[k] ?? 0) > 0);
      if (mouthOpen) wake();
    },
    setPointer(x, y) {
      pointer = x === null || y === undefined ? null : new THREE.Vector2(x, y);
      pointerAt = clock();
      wake();
    },
    setDragging(on) {
      dragging = on;
      if (on) wake();
    },
    setOccluded(on) {
      occluded = on;
      onVisibility();
    },
    step,
    resize,
    inspect() {
      const m = model;
      const expressions: Record<string, number> = {};
      const morphs: Record<string, number[]> = {};
      if (m?.vrm.expressionManager) {
        for (const e of m.vrm.expressionManager.expressions) expressions[e.expressionName] = e.weight;
      }
      m?.vrm.scene.traverse((o: THREE.Object3D) => {
        const mesh = o as THREE.Mesh;
        if (mesh.isMesh && mesh.morphTargetInfluences && !(mesh.name in morphs)) {
          morphs[mesh.name] = [...mesh.morphTargetInfluences];
        }
      });
      const info = renderer.info;
      return {
        loaded: m?.name ?? null,
        running,
        frames,
        interval: frameInterval(need()),
        emotion,
        motion: m?.motion?.id ?? null,
        motionTime: m?.motion?.time ?? 0,
        expressions,
        morphs,
        renderer: {
          geometries: info.memory.geometries,
          textures: info.memory.textures,
          programs: info.programs?.length ?? 0,
          calls: info.render.calls,
          triangles: info.render.triangles,
        },
        camera: { position: camera.position.toArray(), target: cameraTarget.toArray() },
        bones: Object.fromEntries(
          INSPECTED_BONES.flatMap((b) => {
            const node = m?.vrm.humanoid.getNormalizedBoneNode(b);
            return node ? [[b, node.quaternion.toArray() as [number, number, number, number]]] : [];
          }),
        ),
        events: [...events],
      };
    },
    dispose() {
      if (disposed) return;
      stop();
      disposed = true;
      loadSeq++;
      document.removeEventListener("visibilitychange", onVisibility);
      observer?.disconnect();
      canvas.removeEventListener("pointermove", onMove);
      canvas.removeEventListener("pointerleave", onLeave);
      canvas.removeEventListener("pointerdown", onDown);
      if (model) disposeModel(model);
      model = null;
      // No forceContextLoss: a later stage on the same canvas would get the lost context back.
      renderer.dispose();
    },
  };
  resize();
  if (!document.hidden) start();
  return stage;
}
