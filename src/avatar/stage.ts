/**
 * The avatar stage (docs/avatar.md): one canvas showing one VRM character. createStage puts together the parts
 * under stage/: model loading (load.ts), framing (framing.ts), idle life (idle.ts), gaze (gaze.ts), motions
 * (motion-player.ts) and her posture with the bed (posture-player.ts, bed.ts) over the expression player
 * (expression-player.ts), the render loop (loop.ts) and the inspection (inspector.ts).
 */
import * as THREE from "three";
import type { PageRect } from "../protocol/shell.ts";
import type { Cue } from "./cues.ts";
import { DEFAULT_EXPRESSIONS, type ExpressionWeights } from "./default-expressions.ts";
import { createDozeTimer } from "./doze.ts";
import { frameInterval } from "./frame-policy.ts";
import { DEFAULT_MOTIONS } from "./motions.ts";
import { type PostureState, STANDING } from "./posture.ts";
import { createBed } from "./stage/bed.ts";
import { createPoseOffsets } from "./stage/clips.ts";
import { createDozePose, type DozePose } from "./stage/doze-pose.ts";
import { faceBox } from "./stage/face-box.ts";
import { createFraming, type Framing } from "./stage/framing.ts";
import { createGaze } from "./stage/gaze.ts";
import { createIdleLife, type IdleLife } from "./stage/idle.ts";
import { createEventLog, inspectStage } from "./stage/inspector.ts";
import { createModelParser, disposeModel, LOAD_ERRORS, prepareModel } from "./stage/load.ts";
import { createLoading } from "./stage/loading.ts";
import { createLoop, createPacing } from "./stage/loop.ts";
import type { LoadedModel } from "./stage/model.ts";
import { createMotionPlayer } from "./stage/motion-player.ts";
import { createPosturePlayer, type PosturePlayer } from "./stage/posture-player.ts";
import { attachPointer, createScene } from "./stage/scene.ts";
import { createSilhouette } from "./stage/silhouette.ts";
import { STAGE_EVENT } from "./stage-event.ts";
import type { StageVRMAnimation as VRMAnimation } from "./vrm-types.ts";

export type { Framing, PostureState };
export { LOAD_ERRORS, STAGE_EVENT };

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
  /** She dozes (docs/avatar.md "Dozing"), and how far into her resting pose she is (0 awake to 1 settled). */
  dozing: boolean;
  dozeLevel: number;
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
  /** `doze`: she dozed (`id` "doze") or woke (`id` "wake"). */
  type: "emotion" | "relax" | "motion" | "load" | "doze";
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
  /** Eases her face back to rest (no emotion); a motion playing goes on. */
  relax(): void;
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
  /**
   * How long nothing may concern her before she dozes (docs/avatar.md "Dozing"), in seconds; null (the default)
   * never. Cues, the mouth, the pointer, a click, a drag and a change of posture concern her (they wake her).
   */
  setDozeDelay(seconds: number | null): void;
  /** Something else concerns her (a message, the user's voice): she wakes if she dozes, and the wait restarts. */
  wake(): void;
  /** Keeps her awake while `why` is on (a turn under way, the user speaking); the wait restarts after. */
  holdAwake(why: string, on: boolean): void;
  /** Calls `listener` each time she dozes (true) or wakes (false); returns what removes it. */
  onDoze(listener: (dozing: boolean) => void): () => void;
  /**
   * Calls `listener` right after each frame is drawn, in the same task, while the drawing buffer still holds
   * the frame; returns what removes it.
   */
  onFrame(listener: () => void): () => void;
  /**
   * Her silhouette in the frame drawn last: rectangles over her drawn pixels at a `cell`-pixel grain, in the
   * page's CSS pixels. Read it inside an onFrame listener (later the drawing buffer may be cleared).
   */
  silhouette(cell: number): PageRect[];
  /** Her face's box in the page's CSS pixels in the frame drawn last (her bubble never covers it), or null. */
  faceBox(): PageRect | null;
  /** Advances time by `dt` seconds and renders one frame (manual mode, or to force a frame). */
  step(dt: number): void;
  /** Resizes the drawing buffer to the canvas's CSS size. */
  resize(): void;
  inspect(): StageInspection;
  /** Releases every GPU and DOM resource; the stage is unusable afterwards. */
  dispose(): void;
  readonly renderer: THREE.WebGLRenderer;
}

/**
 * What the stage hands its owner besides cues and the mouth (the desktop view, docs/desktop.md): her frames as
 * they are drawn and her silhouette in them, her body's posture, whether her window is covered, reduced motion,
 * and where she looks (the pointer she watches on her own, docs/body.md).
 */
export type StageHandle = Pick<
  Stage,
  | "onFrame"
  | "silhouette"
  | "faceBox"
  | "setPosture"
  | "setOccluded"
  | "setReducedMotion"
  | "setPointer"
  | "setDozeDelay"
  | "wake"
  | "holdAwake"
  | "onDoze"
>;

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

/**
 * What plays, for the frame policy: `motion`, a clip (a cue's, a gesture's) or a posture that needs full rate;
 * `ambient`, one of idle life's ambient motions, drawn at 20 fps.
 */
function playing(model: LoadedModel | null, postures: PosturePlayer, idle: IdleLife, doze: DozePose) {
  const ambient = idle.ambient(model);
  return { motion: (!!model?.motion && !ambient) || postures.fullRate(model) || doze.moving(), ambient };
}

type Opts = ReturnType<typeof withDefaults>;

/** The stage's parts over one scene, and the state they share: the model shown, the frame count, the emotion. */
function assemble(canvas: HTMLCanvasElement, opts: Opts, antialias: boolean) {
  const { renderer, scene, camera } = createScene(canvas, antialias);
  const files = new Map<string, VRMAnimation>();
  const events = createEventLog();
  const st = {
    model: null as LoadedModel | null,
    frames: 0,
    disposed: false,
    emotion: null as string | null,
  };
  const framing = createFraming(camera, opts.framing);
  const dozeListeners = new Set<(dozing: boolean) => void>();
  const motions = createMotionPlayer({
    motions: opts.motions,
    crossfade: opts.crossfade,
    files,
    onStart: (id) => events.push({ type: "motion", id, frame: st.frames }),
  });
  const postures = createPosturePlayer({ motions, framing, bed: createBed(scene), files });
  const idle = createIdleLife({
    random: opts.random,
    eyesClosed: () => postures.show().eyesClosed,
    ambientAllowed: postures.standing,
    startMotion: (id) => st.model && motions.start(st.model, id),
  });
  return {
    ...{ renderer, scene, camera, files, events, st, framing, motions, postures, idle },
    offsets: createPoseOffsets(),
    gaze: createGaze(scene, camera),
    // What the frame policy reads (frame-policy.ts).
    pace: createPacing(Math.max(opts.blendIn, opts.blendOut)),
    frameListeners: new Set<() => void>(),
    doze: createDozePose(),
    dozeListeners,
    // When she dozes: activity (a cue, the pointer, a click...) restarts the wait and wakes her.
    dozeTimer: createDozeTimer({
      onChange: (on) => {
        for (const f of [...dozeListeners]) f(on);
      },
    }),
  };
}
type Parts = ReturnType<typeof assemble>;

/** Her body's state without her window's cover, to tell a change of it (which wakes her) from the same again. */
const postureKey = (s: PostureState) =>
  JSON.stringify([s.posture, s.peek, s.bed, s.moving, s.facing, s.fall ?? null]);
type Loop = ReturnType<typeof createLoop>;

/** One frame of `dt` seconds: the players, then the render, then the frame's listeners. */
function stepper(p: Parts, opts: Opts) {
  return (dt: number) => {
    if (p.st.disposed) return;
    const m = p.st.model;
    if (m) {
      p.offsets.restore();
      m.mixer.update(dt);
      p.motions.update(m, dt);
      // Dozing, her idle life rests: no breathing, no blink, no ambient motion.
      if (opts.idle && !p.doze.dozing()) p.idle.update(m, dt, p.offsets);
      p.gaze.update(m, p.offsets);
    }
    p.postures.update(m, dt);
    // After the posture's eyes: the doze shuts them, and opens them as she wakes.
    p.doze.update(m, dt, p.offsets);
    if (m) {
      m.expressions.update(dt);
      m.vrm.update(dt);
    }
    p.renderer.render(p.scene, p.camera);
    p.st.frames++;
    for (const f of p.frameListeners) f();
  };
}

/** Shows a loaded model in place of the last one and starts the loop. */
function show(p: Parts, opts: Opts, loop: Loop, next: LoadedModel): void {
  const { st } = p;
  if (st.model) disposeModel(st.model, p.scene);
  p.offsets.clear();
  st.model = next;
  p.scene.add(next.vrm.scene);
  if (st.emotion) next.expressions.setEmotion(opts.emotions[st.emotion] ?? {});
  p.postures.loaded(next);
  // Settle the pose before measuring and before the first visible frame.
  next.mixer.update(0);
  next.vrm.update(0);
  p.framing.frame(next.vrm);
  p.events.push({ type: "load", id: next.name, frame: st.frames });
  loop.start();
}

/** The page around the canvas: hidden pages draw nothing, the canvas's size, the pointer. Returns the detach. */
function attachPage(canvas: HTMLCanvasElement, p: Parts, opts: Opts, loop: Loop, resize: () => void) {
  const { st, pace } = p;
  // Idle down while hidden: no frames at all until the window shows again.
  const onVisibility = () => loop.visibility();
  document.addEventListener("visibilitychange", onVisibility);
  const observer = typeof ResizeObserver === "function" ? new ResizeObserver(() => resize()) : null;
  observer?.observe(canvas);
  const detachPointer = attachPointer(canvas, p.camera, {
    move(ndc) {
      if (!opts.trackPointer) return;
      p.gaze.setPointer(ndc);
      pace.state.pointerAt = pace.clock();
      p.dozeTimer.activity();
      loop.wake();
    },
    // A click on her while she stands plays the reactive motion (her postures have their own clips).
    hit: () => (st.model && opts.pokeMotion && p.postures.standing() ? st.model.vrm.scene : null),
    poke: () => {
      p.dozeTimer.activity();
      if (st.model && opts.pokeMotion && p.motions.start(st.model, opts.pokeMotion)) loop.wake();
    },
  });
  return () => {
    document.removeEventListener("visibilitychange", onVisibility);
    observer?.disconnect();
    detachPointer();
  };
}

/** What plays a cue now: its emotion and its motion, each played or unknown. */
function playCue(p: Parts, opts: Opts, loop: Loop, cue: Cue): CueResult {
  const { st, pace } = p;
  const result: CueResult = { emotion: "none", motion: "none" };
  if (cue.emotion_id !== undefined) {
    const weights = opts.emotions[cue.emotion_id];
    if (weights) {
      st.emotion = cue.emotion_id;
      st.model?.expressions.setEmotion(weights);
      pace.state.emotionAt = pace.clock();
      p.events.push({ type: "emotion", id: cue.emotion_id, frame: st.frames });
      result.emotion = "played";
    } else result.emotion = "unknown";
  }
  if (cue.motion_id !== undefined) {
    const known = cue.motion_id in opts.motions;
    result.motion = known && st.model && p.motions.start(st.model, cue.motion_id) ? "played" : "unknown";
    if (known && !st.model) result.motion = "played";
  }
  if (result.emotion === "played" || result.motion === "played") {
    p.dozeTimer.activity();
    loop.wake();
  }
  return result;
}

/** The stage's setters: cues, expressions, the mouth, the pointer, dragging, her window's cover, her body. */
function controls(p: Parts, opts: Opts, loop: Loop) {
  const { st, pace } = p;
  let posture = postureKey(STANDING);
  return {
    playCue: (cue) => playCue(p, opts, loop, cue),
    relax() {
      if (st.emotion === null) return;
      p.events.push({ type: "relax", id: st.emotion, frame: st.frames });
      st.emotion = null;
      st.model?.expressions.setEmotion({});
      // The blend out is drawn at full rate, as a blend in is.
      pace.state.emotionAt = pace.clock();
      loop.wake();
    },
    setExpression(name, weight) {
      st.model?.expressions.setChannel(name, weight);
      p.dozeTimer.activity();
      // A channel set from outside (lip sync, a blink when idle life is off) shows on the next display frame.
      loop.wake();
    },
    setMouth(weights) {
      for (const k of MOUTH_SHAPES) st.model?.expressions.setChannel(k, weights[k] ?? 0);
      pace.state.mouthOpen = MOUTH_SHAPES.some((k) => (weights[k] ?? 0) > 0);
      // Her voice: she is awake while her mouth moves.
      p.dozeTimer.hold("mouth", pace.state.mouthOpen);
      if (pace.state.mouthOpen) loop.wake();
    },
    setPointer(x, y) {
      p.gaze.setPointer(x === null || y === undefined ? null : new THREE.Vector2(x, y));
      pace.state.pointerAt = pace.clock();
      p.dozeTimer.activity();
      loop.wake();
    },
    setDragging(on) {
      pace.state.dragging = on;
      p.dozeTimer.hold("drag", on);
      if (on) loop.wake();
    },
    setOccluded(on) {
      pace.state.occluded = on;
      loop.visibility();
    },
    setPosture(state) {
      // A change of her body's state concerns her (a body call, her window dragged or moved); the same state
      // again (only her window's cover changed) does not.
      const was = posture;
      posture = postureKey(state);
      if (posture !== was) p.dozeTimer.activity();
      p.postures.set(state, st.model);
      loop.wake();
    },
    setReducedMotion(on) {
      p.postures.setReduced(on, st.model);
      p.doze.setReduced(on);
      loop.wake();
    },
    setDozeDelay: (seconds) => p.dozeTimer.delay(seconds === null ? null : seconds * 1000),
    wake: () => p.dozeTimer.activity(),
    holdAwake: (why, on) => p.dozeTimer.hold(why, on),
    onDoze(listener) {
      p.dozeListeners.add(listener);
      return () => {
        p.dozeListeners.delete(listener);
      };
    },
  } satisfies Partial<Stage>;
}

/** Creates the avatar stage on `canvas` (transparent background). */
export function createStage(canvas: HTMLCanvasElement, options: StageOptions = {}): Stage {
  const opts = withDefaults(options);
  const p = assemble(canvas, opts, options.antialias ?? true);
  const { st, renderer, camera } = p;
  const resize = () => {
    const w = Math.max(1, canvas.clientWidth || canvas.width);
    const h = Math.max(1, canvas.clientHeight || canvas.height);
    renderer.setPixelRatio(Math.min(opts.maxPixelRatio, globalThis.devicePixelRatio || 1));
    renderer.setSize(w, h, false);
    camera.aspect = w / h;
    camera.updateProjectionMatrix();
    if (st.model) p.framing.frame(st.model.vrm);
  };
  const step = stepper(p, opts);
  /** What the character is doing now, for the frame policy. */
  const need = () =>
    p.pace.need(
      playing(st.model, p.postures, p.idle, p.doze),
      opts.idle && p.idle.blinking() && !p.doze.dozing(),
      p.doze.settled(),
    );
  const loop = createLoop({ step, need, allowed: () => !st.disposed && !opts.manual, hidden: p.pace.hidden });
  // She dozes or wakes: into her resting pose or out of it, drawn at full rate until she has settled.
  p.dozeListeners.add((on) => {
    p.doze.set(on);
    p.events.push({ type: "doze", id: on ? "doze" : "wake", frame: st.frames });
    loop.wake();
  });
  const detach = attachPage(canvas, p, opts, loop, resize);
  const loading = createLoading({
    parse: createModelParser(),
    files: p.files,
    prepare: (gltf) => prepareModel(gltf, p.gaze.target, opts),
    disposed: () => st.disposed,
    show: (m) => show(p, opts, loop, m),
    clipLoaded: (clipId) => st.model?.clips.delete(clipId),
  });
  const stage: Stage = {
    renderer,
    load: loading.load,
    loadClip: loading.loadClip,
    ...controls(p, opts, loop),
    onFrame(listener) {
      p.frameListeners.add(listener);
      return () => {
        p.frameListeners.delete(listener);
      };
    },
    silhouette: createSilhouette(canvas),
    faceBox: () => faceBox(st.model?.vrm.humanoid.getNormalizedBoneNode("head"), camera, canvas),
    step,
    resize,
    inspect: () =>
      inspectStage({
        model: st.model,
        renderer,
        camera,
        cameraTarget: p.framing.target,
        state: {
          running: loop.running(),
          frames: st.frames,
          interval: frameInterval(need()),
          emotion: st.emotion,
          ...p.postures.inspect(),
          dozing: p.dozeTimer.dozing(),
          dozeLevel: p.doze.level(),
          events: p.events.list(),
        },
      }),
    dispose() {
      if (st.disposed) return;
      loop.stop();
      p.dozeTimer.dispose();
      p.dozeListeners.clear();
      st.disposed = true;
      loading.cancel();
      detach();
      if (st.model) disposeModel(st.model, p.scene);
      st.model = null;
      p.frameListeners.clear();
      // No forceContextLoss: a later stage on the same canvas would get the lost context back.
      renderer.dispose();
    },
  };
  resize();
  if (!document.hidden) loop.start();
  canvas.dispatchEvent(new CustomEvent(STAGE_EVENT, { detail: stage, bubbles: true }));
  return stage;
}
