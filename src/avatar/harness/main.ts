import * as THREE from "three";
import { type AnchoredCue, createCueScheduler } from "../cues.ts";
import { attachModelDrop } from "../model-file.ts";
import { AMBIENT_MOTIONS } from "../motions.ts";
import type { PostureState } from "../posture.ts";
import { createStage, type Stage, type StageInspection, type StageOptions } from "../stage.ts";

// Test and benchmark harness page: exposes the stage to Playwright through window.harness.

/** One frame of a scripted reply: how far the text was revealed and what the stage showed. */
export interface ReplyFrame {
  position: number;
  expressions: Record<string, number>;
  motion: string | null;
  played: string[];
}

const canvas = document.getElementById("stage") as HTMLCanvasElement;
let stage: Stage | null = null;
// The scene the stage last rendered, caught at the renderer (test-only: the stage keeps its scene private).
let rendered: THREE.Scene | null = null;
// Off while springRun measures the scene: hundreds of unread SwiftShader frames would only queue up
// in the GPU process and stall whatever next waits on it.
let draw = true;
/** Where each character root rested before moveCharacter() first moved it. */
const restOf = new WeakMap<THREE.Object3D, { x: number; yaw: number }>();

const need = (): Stage => {
  if (!stage) throw new Error("harness: call create() first");
  return stage;
};

/** The root object of the shown character: the child of the rendered scene that holds the skeleton. */
function characterRoot(): THREE.Object3D {
  let node = rendered?.getObjectByName("hips") ?? null;
  while (node?.parent && node.parent !== rendered) node = node.parent;
  if (!node || !rendered) throw new Error("harness: no character on stage (load and step first)");
  return node;
}

/** The drawing buffer's RGBA pixels (bottom row first); read right after a render. */
function readCanvas(): { buf: Uint8Array; w: number; h: number } {
  const gl = need().renderer.getContext();
  const w = gl.drawingBufferWidth;
  const h = gl.drawingBufferHeight;
  const buf = new Uint8Array(w * h * 4);
  gl.readPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, buf);
  return { buf, w, h };
}
const snapshots = new Map<string, Uint8Array>();

/** FNV-1a over the canvas pixels plus how many are not transparent; read right after a render. */
function pixels(): { hash: number; opaque: number; total: number; box: [number, number, number, number] } {
  const { buf, w, h } = readCanvas();
  let hash = 0x811c9dc5;
  let opaque = 0;
  // Bounding box of drawn pixels, top-left origin: [minX, minY, maxX, maxY].
  const box: [number, number, number, number] = [w, h, -1, -1];
  for (let i = 0; i < buf.length; i += 4) {
    if (buf[i + 3]! > 0) {
      opaque++;
      const x = (i / 4) % w;
      const y = h - 1 - Math.floor(i / 4 / w);
      box[0] = Math.min(box[0], x);
      box[1] = Math.min(box[1], y);
      box[2] = Math.max(box[2], x);
      box[3] = Math.max(box[3], y);
    }
    for (let k = 0; k < 4; k++) hash = Math.imul(hash ^ buf[i + k]!, 0x01000193) >>> 0;
  }
  return { hash, opaque, total: w * h, box };
}

const harness = {
  create(options: StageOptions = {}) {
    stage?.dispose();
    stage = createStage(canvas, options);
    rendered = null;
    const renderer = stage.renderer;
    const render = renderer.render.bind(renderer);
    renderer.render = (scene, camera) => {
      rendered = scene as THREE.Scene;
      if (draw) render(scene, camera);
      else scene.updateMatrixWorld(); // all that render() does besides drawing
    };
    return true;
  },
  async load(
    source: string | number[],
  ): Promise<{ ok: true; result: unknown } | { ok: false; error: string }> {
    try {
      const input = typeof source === "string" ? source : new Uint8Array(source);
      return { ok: true, result: await need().load(input) };
    } catch (err) {
      return { ok: false, error: err instanceof Error ? err.message : String(err) };
    }
  },
  /** Loads `urls` in turn, `count` times, rendering one frame after each; returns each load's status. */
  async cycleModels(urls: string[], count: number): Promise<string[]> {
    const out: string[] = [];
    for (let i = 0; i < count; i++) {
      const r = await need().load(urls[i % urls.length]!);
      need().step(1 / 60);
      out.push(r.status);
    }
    return out;
  },
  /** Runs idle life for `seconds` in `dt` steps; returns the largest head and spine turn seen (degrees) and the motions played. */
  idleRun(
    seconds: number,
    dt: number,
  ): { maxHeadDeg: number; maxSpineDeg: number; motions: string[]; ambientIntervals: (number | null)[] } {
    const s = need();
    let maxHeadDeg = 0;
    let maxSpineDeg = 0;
    // The frame policy's answers while one of idle life's ambient motions plays.
    const ambientIntervals = new Set<number | null>();
    const angle = (q: number[] | undefined) =>
      q ? (2 * Math.acos(Math.min(1, Math.abs(q[3]!))) * 180) / Math.PI : 0;
    for (let t = 0; t < seconds; t += dt) {
      s.step(dt);
      const { bones, motion, interval } = s.inspect();
      maxHeadDeg = Math.max(maxHeadDeg, angle(bones.head));
      maxSpineDeg = Math.max(maxSpineDeg, angle(bones.spine));
      if ((AMBIENT_MOTIONS as readonly (string | null)[]).includes(motion)) ambientIntervals.add(interval);
    }
    const motions = s
      .inspect()
      .events.filter((e) => e.type === "motion")
      .map((e) => e.id);
    return { maxHeadDeg, maxSpineDeg, motions, ambientIntervals: [...ambientIntervals] };
  },
  /** Starts several loads without waiting, then waits for all: the last one must win. */
  async loadRace(sources: string[]) {
    const results = await Promise.allSettled(sources.map((s) => need().load(s)));
    return results.map((r) => (r.status === "fulfilled" ? r.value : { error: String(r.reason) }));
  },
  async loadClip(id: string, url: string) {
    await need().loadClip(id, url);
    return true;
  },
  step(dt: number, frames = 1) {
    for (let i = 0; i < frames; i++) need().step(dt);
    return pixels();
  },
  /**
   * Steps `frames` frames with an onFrame listener that reads her silhouette at `cell` (the stage's handle, as
   * the desktop view uses it), removes it, steps once more; the listener's calls, its last silhouette, the
   * canvas's place in the page and the last frame's pixels.
   */
  frameWatch(cell: number, frames: number) {
    const s = need();
    let calls = 0;
    let rects: number[][] = [];
    const off = s.onFrame(() => {
      calls++;
      rects = s.silhouette(cell);
    });
    for (let i = 0; i < frames; i++) s.step(0);
    off();
    s.step(0);
    const r = canvas.getBoundingClientRect();
    return { calls, rects, at: [r.left, r.top], px: pixels() };
  },
  /** Renders a frame without advancing time and keeps its pixels under `key`, for compare(). */
  snapshot(key: string) {
    // Read in the same task as the render: the browser clears the drawing buffer once it is composited.
    need().step(0);
    snapshots.set(key, readCanvas().buf);
  },
  /** Share of the pixels drawn in either snapshot whose RGBA differs by more than `tolerance` (0-255) in a channel. */
  compare(a: string, b: string, tolerance: number): number {
    const x = snapshots.get(a);
    const y = snapshots.get(b);
    if (!x || !y || x.length !== y.length)
      throw new Error(`harness: snapshots ${a} and ${b} do not match in size`);
    let drawn = 0;
    let differ = 0;
    for (let i = 0; i < x.length; i += 4) {
      if (x[i + 3] === 0 && y[i + 3] === 0) continue;
      drawn++;
      for (let k = 0; k < 4; k++) {
        if (Math.abs(x[i + k]! - y[i + k]!) > tolerance) {
          differ++;
          break;
        }
      }
    }
    return drawn ? differ / drawn : 0;
  },
  setExpression(name: string, weight: number) {
    need().setExpression(name, weight);
  },
  playCue(cue: Parameters<Stage["playCue"]>[0]) {
    return need().playCue(cue);
  },
  setPointer(x: number | null, y?: number) {
    need().setPointer(x, y);
  },
  inspect(): StageInspection {
    return need().inspect();
  },
  /**
   * Reveals `text` a few characters per frame (the no-voice text reveal) with `cues` anchored in it,
   * playing each cue when the reveal reaches it; returns what the stage showed at every frame.
   */
  reply(text: string, cues: AnchoredCue[], charsPerFrame: number, dt: number, watch: string[]): ReplyFrame[] {
    const s = need();
    const played: string[] = [];
    const scheduler = createCueScheduler((cue, position) => {
      s.playCue(cue);
      played.push(`${cue.emotion_id ?? ""}/${cue.motion_id ?? ""}@${position}`);
    });
    for (const c of cues) scheduler.add(c.offset, c.cue);
    const out: ReplyFrame[] = [];
    for (let position = 0; position <= text.length + charsPerFrame * 20; position += charsPerFrame) {
      scheduler.reveal(Math.min(position, text.length));
      s.step(dt);
      const info = s.inspect();
      out.push({
        position: Math.min(position, text.length),
        expressions: Object.fromEntries(watch.map((n) => [n, info.expressions[n] ?? 0])),
        motion: info.motion,
        played: [...played],
      });
    }
    return out;
  },
  /** World position of a node of the shown character, by glTF node name (first rendered frame onwards). */
  worldPosition(name: string): [number, number, number] | null {
    const node = rendered?.getObjectByName(name);
    return node ? (node.getWorldPosition(new THREE.Vector3()).toArray() as [number, number, number]) : null;
  },
  /** MToon UV animation state of each material of the shown character (outline passes left out), by name. */
  uvAnimation(): Record<string, { scrollX: number; scrollY: number; rotation: number }> {
    const out: Record<string, { scrollX: number; scrollY: number; rotation: number }> = {};
    rendered?.traverse((node) => {
      const mats = (node as THREE.Mesh).material;
      for (const m of Array.isArray(mats) ? mats : mats ? [mats] : []) {
        const t = m as THREE.Material & {
          isMToonMaterial?: boolean;
          isOutline?: boolean;
          uvAnimationScrollXOffset: number;
          uvAnimationScrollYOffset: number;
          uvAnimationRotationPhase: number;
        };
        if (!t.isMToonMaterial || t.isOutline) continue;
        out[t.name] = {
          scrollX: t.uvAnimationScrollXOffset,
          scrollY: t.uvAnimationScrollYOffset,
          rotation: t.uvAnimationRotationPhase,
        };
      }
    });
    return out;
  },
  /** Moves the whole character (its scene root): `x` metres along world X and `yaw` radians about Y from where it rested. */
  moveCharacter(x: number, yaw: number) {
    const root = characterRoot();
    let rest = restOf.get(root);
    if (!rest) {
      rest = { x: root.position.x, yaw: root.rotation.y };
      restOf.set(root, rest);
    }
    root.position.x = rest.x + x;
    root.rotation.y = rest.yaw + yaw;
  },
  /**
   * Steps `path.length` frames of `dt`, placing the character at each [x, yaw] of `path` (null: leave it),
   * and returns, per frame, each named node's position in the head bone's space (metres). The frames are
   * updated (animation, expressions, spring bones) but not drawn.
   */
  springRun(
    path: Array<[number, number] | null>,
    dt: number,
    tips: string[],
  ): { frames: Array<Record<string, [number, number, number]>>; sideways: [number, number, number] } {
    const s = need();
    const find = (name: string) => {
      const node = rendered?.getObjectByName(name);
      if (!node) throw new Error(`harness: no node ${name} in the rendered scene`);
      return node;
    };
    const frames: Array<Record<string, [number, number, number]>> = [];
    let head: THREE.Object3D | null = null;
    let nodes: Array<readonly [string, THREE.Object3D]> = [];
    draw = false;
    try {
      for (const at of path) {
        if (at) harness.moveCharacter(at[0], at[1]);
        s.step(dt);
        // Looked up after a frame: the scene is known once the stage has rendered it.
        if (!head) {
          head = find("head");
          nodes = tips.map((t) => [t, find(t)] as const);
        }
        head.updateWorldMatrix(true, false);
        const toHead = head.matrixWorld.clone().invert();
        frames.push(
          Object.fromEntries(
            nodes.map(([name, node]) => [
              name,
              node.getWorldPosition(new THREE.Vector3()).applyMatrix4(toHead).toArray() as [
                number,
                number,
                number,
              ],
            ]),
          ),
        );
      }
    } finally {
      draw = true;
    }
    if (!head) throw new Error("harness: springRun needs at least one frame");
    // World +X (the direction moveCharacter moves in) seen from the head, to tell lag from lead.
    const sideways = new THREE.Vector3(1, 0, 0)
      .transformDirection(head.matrixWorld.clone().invert())
      .toArray() as [number, number, number];
    return { frames, sideways };
  },
  /** Her body's state, as main's page passes on the host's `yui://body` event. */
  setPosture(state: PostureState) {
    need().setPosture(state);
  },
  setReducedMotion(on: boolean) {
    need().setReducedMotion(on);
  },
  /** The bed in the rendered scene: its opacity, or null when there is none. */
  bed(): number | null {
    const bed = rendered?.getObjectByName("yui-bed") as THREE.Group | undefined;
    const mesh = bed?.children[0] as THREE.Mesh | undefined;
    return mesh ? (mesh.material as THREE.Material).opacity : null;
  },
  /** Her doze (docs/avatar.md "Dozing"): the wait in seconds (null never), activity, a hold keeping her awake. */
  setDozeDelay(seconds: number | null) {
    need().setDozeDelay(seconds);
  },
  wake() {
    need().wake();
  },
  holdAwake(why: string, on: boolean) {
    need().holdAwake(why, on);
  },
  /** What the shell reports for the character's window: hidden or fully covered. */
  setOccluded(on: boolean) {
    need().setOccluded(on);
  },
  /** Frames the stage's own loop drew per second over `ms` of wall-clock time (its frame counter). */
  async frameRate(ms: number): Promise<number> {
    const s = need();
    const f0 = s.inspect().frames;
    const t0 = performance.now();
    await new Promise((r) => setTimeout(r, ms));
    return ((s.inspect().frames - f0) * 1000) / (performance.now() - t0);
  },
  /**
   * Waits `ticks` display frames of the page (requestAnimationFrame) and returns how many frames the stage drew
   * meanwhile: a count that does not depend on how fast a loaded machine draws.
   */
  async framesOver(ticks: number): Promise<{ ticks: number; drawn: number }> {
    const s = need();
    const f0 = s.inspect().frames;
    await new Promise<void>((r) => {
      let n = 0;
      const tick = () => (++n >= ticks ? r() : requestAnimationFrame(tick));
      requestAnimationFrame(tick);
    });
    return { ticks, drawn: s.inspect().frames - f0 };
  },
  /** Pretends the window was hidden or shown (the browser fires visibilitychange the same way). */
  setHidden(hidden: boolean) {
    Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
    document.dispatchEvent(new Event("visibilitychange"));
  },
  /**
   * Benchmark: times `frames` stage frames (update + render, waited for with a 1-pixel readback so the
   * GPU work is counted) after `warmup` untimed ones; returns milliseconds per frame.
   */
  benchStage(frames: number, warmup: number): number[] {
    const s = need();
    const gl = s.renderer.getContext();
    const px = new Uint8Array(4);
    const times: number[] = [];
    for (let i = 0; i < warmup + frames; i++) {
      const t0 = performance.now();
      s.step(1 / 60);
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
      if (i >= warmup) times.push(performance.now() - t0);
    }
    return times;
  },
  /** Benchmark baseline: the same loop over an empty three.js scene on a same-sized canvas. */
  benchEmpty(frames: number, warmup: number): number[] {
    const c = document.createElement("canvas");
    c.style.cssText = canvas.style.cssText;
    c.width = canvas.width;
    c.height = canvas.height;
    document.body.appendChild(c);
    const renderer = new THREE.WebGLRenderer({ canvas: c, alpha: true, antialias: true });
    renderer.setSize(canvas.width, canvas.height, false);
    const scene = new THREE.Scene();
    const camera = new THREE.PerspectiveCamera(28, canvas.width / canvas.height, 0.05, 50);
    const gl = renderer.getContext();
    const px = new Uint8Array(4);
    const times: number[] = [];
    for (let i = 0; i < warmup + frames; i++) {
      const t0 = performance.now();
      renderer.render(scene, camera);
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, px);
      if (i >= warmup) times.push(performance.now() - t0);
    }
    renderer.dispose();
    c.remove();
    return times;
  },
  /** Wires drag-and-drop of a .vrm onto the canvas the way settings does; outcomes go to `dropped`. */
  attachDrop() {
    const s = need();
    harness.dropped = [];
    attachModelDrop(canvas, (model) => {
      if (!model.check.ok) {
        harness.dropped.push(`error: ${model.check.error}`);
        return;
      }
      s.load(model.bytes).then(
        (r) => harness.dropped.push(r.status === "loaded" ? `loaded: ${r.name}` : r.status),
        (err: unknown) => harness.dropped.push(`error: ${String(err)}`),
      );
    });
  },
  dropped: [] as string[],
  /** Drops a file with `bytes` on the canvas, as the browser does for a real drag from the desktop. */
  async dropFile(name: string, url: string) {
    const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
    const transfer = new DataTransfer();
    transfer.items.add(new File([bytes], name, { type: "application/octet-stream" }));
    const over = new DragEvent("dragover", { dataTransfer: transfer, cancelable: true, bubbles: true });
    canvas.dispatchEvent(over);
    canvas.dispatchEvent(new DragEvent("drop", { dataTransfer: transfer, cancelable: true, bubbles: true }));
    return over.defaultPrevented;
  },
  /** Resizes the canvas (CSS pixels) and the stage with it. */
  setSize(width: number, height: number) {
    canvas.style.width = `${width}px`;
    canvas.style.height = `${height}px`;
    need().resize();
  },
  dispose() {
    stage?.dispose();
    stage = null;
  },
};

declare global {
  interface Window {
    harness: typeof harness;
  }
}
window.harness = harness;
document.title = "harness ready";
