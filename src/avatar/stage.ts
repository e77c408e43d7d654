/**
 * The avatar stage (docs/avatar.md): one canvas showing one VRM character. createStage puts together the parts
 * under stage/: model loading (load.ts), framing (framing.ts), idle life (idle.ts), gaze (gaze.ts), motions
 * (motion-player.ts) and her posture with the bed (posture-player.ts, bed.ts) over the expression player
 * (expression-player.ts), the render loop (loop.ts) and the inspection (inspector.ts).
 */
import * as THREE from "three";
import type { Cue } from "./cues.ts";
import { DEFAULT_EXPRESSIONS, type ExpressionWeights } from "./default-expressions.ts";
import { frameInterval } from "./frame-policy.ts";
import { checkModelBytes } from "./model-file.ts";
import { DEFAULT_MOTIONS } from "./motions.ts";
import type { PostureState } from "./posture.ts";
import { createBed } from "./stage/bed.ts";
import { createPoseOffsets } from "./stage/clips.ts";
import { createFraming, type Framing } from "./stage/framing.ts";
import { createGaze } from "./stage/gaze.ts";
import { createIdleLife, type IdleLife } from "./stage/idle.ts";
import { createEventLog, inspectStage } from "./stage/inspector.ts";
import {
  animationOf,
  createModelParser,
  describeError,
  discardParsed,
  disposeModel,
  LOAD_ERRORS,
  type ParsedFile,
  prepareModel,
  type Source,
} from "./stage/load.ts";
import { createLoop, createPacing } from "./stage/loop.ts";
import type { LoadedModel } from "./stage/model.ts";
import { createMotionPlayer } from "./stage/motion-player.ts";
import { createPosturePlayer, type PosturePlayer } from "./stage/posture-player.ts";
import type { StageVRMAnimation as VRMAnimation } from "./vrm-types.ts";

export type { Framing, PostureState };
export { LOAD_ERRORS };

/** The VRM mouth shapes lip sync drives. */
export const MOUTH_SHAPES = ["aa", "ih", "ou", "ee", "oh"] as const;
export type MouthShape = (typeof MOUTH_SHAPES)[number];

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
  /** Her posture's clip (motions.ts POSTURE_CLIPS), or null for standing's idle life. */
  posture: string | null;
  /** The bed's opacity: 0 when there is none, 1 when it is fully there. */
  bed: number;
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
  /**
   * Her body's state from the host (docs/body.md "In main's page"): her posture's clip replaces idle life's
   * stance (walking, climbing, sitting, peeking, dangling, lying down, asleep, waking), the bed comes and goes.
   */
  setPosture(state: PostureState): void;
  /** Reduced motion: a posture shows as a still pose, a one-shot posture clip as its end. */
  setReducedMotion(on: boolean): void;
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

/** The options with their defaults filled in. */
function withDefaults(options: StageOptions) {
  return {
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
}

/** The renderer, scene, camera and lights of a stage on `canvas` (transparent background). */
function createScene(canvas: HTMLCanvasElement, antialias: boolean) {
  const renderer = new THREE.WebGLRenderer({ canvas, alpha: true, antialias, premultipliedAlpha: true });
  renderer.setClearColor(0x000000, 0);
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  const scene = new THREE.Scene();
  const camera = new THREE.PerspectiveCamera(28, 1, 0.05, 50);
  const light = new THREE.DirectionalLight(0xffffff, Math.PI * 0.7);
  light.position.set(0.6, 1.4, 2.2);
  scene.add(light, new THREE.AmbientLight(0xffffff, Math.PI * 0.3));
  return { renderer, scene, camera };
}

/** Pointer input on the canvas: the gaze follows the pointer; a click on the character (not the background) pokes. */
function attachPointer(
  canvas: HTMLCanvasElement,
  camera: THREE.Camera,
  on: { move(ndc: THREE.Vector2 | null): void; hit(): THREE.Object3D | null; poke(): void },
) {
  const toNdc = (e: PointerEvent) => {
    const r = canvas.getBoundingClientRect();
    return new THREE.Vector2(
      ((e.clientX - r.left) / r.width) * 2 - 1,
      -((e.clientY - r.top) / r.height) * 2 + 1,
    );
  };
  const onMove = (e: PointerEvent) => on.move(toNdc(e));
  const onLeave = () => on.move(null);
  const raycaster = new THREE.Raycaster();
  const onDown = (e: PointerEvent) => {
    const target = on.hit();
    if (!target) return;
    raycaster.setFromCamera(toNdc(e), camera);
    if (raycaster.intersectObject(target, true).length > 0) on.poke();
  };
  canvas.addEventListener("pointermove", onMove);
  canvas.addEventListener("pointerleave", onLeave);
  canvas.addEventListener("pointerdown", onDown);
  return () => {
    canvas.removeEventListener("pointermove", onMove);
    canvas.removeEventListener("pointerleave", onLeave);
    canvas.removeEventListener("pointerdown", onDown);
  };
}

/** load() and loadClip(): the newest load wins; a superseded or late one is freed, never shown. */
function createLoading(deps: {
  parse: ReturnType<typeof createModelParser>;
  files: Map<string, VRMAnimation>;
  prepare: (gltf: ParsedFile) => ReturnType<typeof prepareModel>;
  disposed: () => boolean;
  show: (m: LoadedModel) => void;
  clipLoaded: (clipId: string) => void;
}) {
  let loadSeq = 0;
  return {
    async load(source: Source): Promise<LoadResult> {
      const id = ++loadSeq;
      if (typeof source !== "string") {
        // Bytes from the user: a quick structural check gives a clearer message than the glTF parser.
        const check = checkModelBytes(source instanceof Uint8Array ? source : new Uint8Array(source));
        if (!check.ok) throw new Error(check.error);
      }
      let gltf: ParsedFile;
      try {
        gltf = await deps.parse(source);
      } catch (err) {
        if (id !== loadSeq) return { status: "superseded" };
        throw new Error(`${LOAD_ERRORS.unreadable}${describeError(err)}`);
      }
      if (id !== loadSeq || deps.disposed()) {
        discardParsed(gltf);
        return { status: "superseded" };
      }
      const { model, specVersion } = deps.prepare(gltf);
      deps.show(model);
      return { status: "loaded", name: model.name, specVersion };
    },
    async loadClip(clipId: string, source: Source): Promise<void> {
      const gltf = await deps.parse(source).catch((err: unknown) => {
        throw new Error(`${LOAD_ERRORS.unreadableClip}${describeError(err)}`);
      });
      deps.files.set(clipId, animationOf(gltf));
      deps.clipLoaded(clipId);
    },
    /** Every load under way ends superseded (dispose). */
    cancel() {
      loadSeq++;
    },
  };
}

/**
 * What plays, for the frame policy: `motion`, a clip (a cue's, a gesture's) or a posture that needs full rate;
 * `ambient`, one of idle life's ambient motions, drawn at 20 fps.
 */
function playing(model: LoadedModel | null, postures: PosturePlayer, idle: IdleLife) {
  const ambient = idle.ambient(model);
  return { motion: (!!model?.motion && !ambient) || postures.fullRate(model), ambient };
}

/** Creates the avatar stage on `canvas` (transparent background). */
export function createStage(canvas: HTMLCanvasElement, options: StageOptions = {}): Stage {
  const opts = withDefaults(options);
  const { renderer, scene, camera } = createScene(canvas, options.antialias ?? true);
  const fileClips = new Map<string, VRMAnimation>();
  const events = createEventLog();
  const offsets = createPoseOffsets();
  const framing = createFraming(camera, opts.framing);
  const gaze = createGaze(scene, camera);
  const motions = createMotionPlayer({
    motions: opts.motions,
    crossfade: opts.crossfade,
    files: fileClips,
    onStart: (id) => events.push({ type: "motion", id, frame: frames }),
  });
  const postures = createPosturePlayer({ motions, framing, bed: createBed(scene), files: fileClips });
  const idle = createIdleLife({
    random: opts.random,
    eyesClosed: () => postures.show().eyesClosed,
    ambientAllowed: postures.standing,
    startMotion: (id) => model && motions.start(model, id),
  });
  let model: LoadedModel | null = null;
  let frames = 0;
  let disposed = false;
  let emotion: string | null = null;
  // What the frame policy reads (frame-policy.ts).
  const pace = createPacing(Math.max(opts.blendIn, opts.blendOut));
  const { state: paced, clock } = pace;

  const resize = () => {
    const w = Math.max(1, canvas.clientWidth || canvas.width);
    const h = Math.max(1, canvas.clientHeight || canvas.height);
    renderer.setPixelRatio(Math.min(opts.maxPixelRatio, globalThis.devicePixelRatio || 1));
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    if (model) framing.frame(model.vrm);
  };

  const step = (dt: number) => {
    if (disposed) return;
    const m = model;
    if (m) {
      offsets.restore();
      m.mixer.update(dt);
      motions.update(m, dt);
      if (opts.idle) idle.update(m, dt, offsets);
      gaze.update(m, offsets);
    }
    postures.update(m, dt);
    if (m) {
      m.expressions.update(dt);
      m.vrm.update(dt);
    }
    renderer.render(scene, camera);
    frames++;
  };

  /** What the character is doing now, for the frame policy. */
  const need = () => pace.need(playing(model, postures, idle), opts.idle && idle.blinking());
  const loop = createLoop({
    step,
    need,
    allowed: () => !disposed && !opts.manual,
    hidden: pace.hidden,
  });
  // Idle down while hidden: no frames at all until the window shows again.
  const onVisibility = () => loop.visibility();
  document.addEventListener("visibilitychange", onVisibility);
  const observer = typeof ResizeObserver === "function" ? new ResizeObserver(() => resize()) : null;
  observer?.observe(canvas);
  const detachPointer = attachPointer(canvas, camera, {
    move(ndc) {
      if (!opts.trackPointer) return;
      gaze.setPointer(ndc);
      paced.pointerAt = clock();
      loop.wake();
    },
    // A click on her while she stands plays the reactive motion (her postures have their own clips).
    hit: () => (model && opts.pokeMotion && postures.standing() ? model.vrm.scene : null),
    poke: () => {
      if (model && opts.pokeMotion && motions.start(model, opts.pokeMotion)) loop.wake();
    },
  });

  const show = (next: LoadedModel) => {
    if (model) disposeModel(model, scene);
    offsets.clear();
    model = next;
    scene.add(next.vrm.scene);
    if (emotion) next.expressions.setEmotion(opts.emotions[emotion] ?? {});
    postures.loaded(next);
    // Settle the pose before measuring and before the first visible frame.
    next.mixer.update(0);
    next.vrm.update(0);
    framing.frame(next.vrm);
    events.push({ type: "load", id: next.name, frame: frames });
    loop.start();
  };

  const loading = createLoading({
    parse: createModelParser(),
    files: fileClips,
    prepare: (gltf) => prepareModel(gltf, gaze.target, opts),
    disposed: () => disposed,
    show,
    clipLoaded: (clipId) => model?.clips.delete(clipId),
  });

  const stage: Stage = {
    renderer,
    load: loading.load,
    loadClip: loading.loadClip,
    playCue(cue) {
      const result: CueResult = { emotion: "none", motion: "none" };
      if (cue.emotion_id !== undefined) {
        const weights = opts.emotions[cue.emotion_id];
        if (weights) {
          emotion = cue.emotion_id;
          model?.expressions.setEmotion(weights);
          paced.emotionAt = clock();
          events.push({ type: "emotion", id: cue.emotion_id, frame: frames });
          result.emotion = "played";
        } else result.emotion = "unknown";
      }
      if (cue.motion_id !== undefined) {
        const known = cue.motion_id in opts.motions;
        result.motion = known && model && motions.start(model, cue.motion_id) ? "played" : "unknown";
        if (known && !model) result.motion = "played";
      }
      if (result.emotion === "played" || result.motion === "played") loop.wake();
      return result;
    },
    setExpression(name, weight) {
      model?.expressions.setChannel(name, weight);
      // A channel set from outside (lip sync, a blink when idle life is off) shows on the next display frame.
      loop.wake();
    },
    setMouth(weights) {
      for (const k of MOUTH_SHAPES) model?.expressions.setChannel(k, weights[k] ?? 0);
      paced.mouthOpen = MOUTH_SHAPES.some((k) => (weights[k] ?? 0) > 0);
      if (paced.mouthOpen) loop.wake();
    },
    setPointer(x, y) {
      gaze.setPointer(x === null || y === undefined ? null : new THREE.Vector2(x, y));
      paced.pointerAt = clock();
      loop.wake();
    },
    setDragging(on) {
      paced.dragging = on;
      if (on) loop.wake();
    },
    setOccluded(on) {
      paced.occluded = on;
      loop.visibility();
    },
    setPosture(state) {
      postures.set(state, model);
      loop.wake();
    },
    setReducedMotion(on) {
      postures.setReduced(on, model);
      loop.wake();
    },
    step,
    resize,
    inspect: () =>
      inspectStage({
        model,
        renderer,
        camera,
        cameraTarget: framing.target,
        state: {
          running: loop.running(),
          frames,
          interval: frameInterval(need()),
          emotion,
          ...postures.inspect(),
          events: events.list(),
        },
      }),
    dispose() {
      if (disposed) return;
      loop.stop();
      disposed = true;
      loading.cancel();
      document.removeEventListener("visibilitychange", onVisibility);
      observer?.disconnect();
      detachPointer();
      if (model) disposeModel(model, scene);
      model = null;
      // No forceContextLoss: a later stage on the same canvas would get the lost context back.
      renderer.dispose();
    },
  };
  resize();
  if (!document.hidden) loop.start();
  return stage;
}
