import { mkdir, readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type * as V0 from "@pixiv/types-vrm-0.0";
import type { ConsoleMessage } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sse, startScriptedBackend } from "../../tools/scripted-backend/server.ts";
import { readGlbJson } from "../../tools/vrm-gen/glb.ts";
import { generateDefaultVrm, generateVrm0 } from "../../tools/vrm-gen/main.ts";
import { DEFAULT_VOCABULARY } from "../app/vocabulary/vocabulary.ts";
import { createChatEngine } from "../io/chat/stream/engine.ts";
import { createGenerateExpressTool, GENERATE_EXPRESS } from "../io/chat/tools/express.ts";
import type { AnchoredCue, Cue } from "./cues.ts";
import { FIXTURES, type Harness, REPO, startHarness } from "./harness/serve.ts";
import { MODEL_FILE_ERRORS } from "./model-file.ts";
import { DEFAULT_MOTIONS } from "./motions.ts";
import { LOAD_ERRORS } from "./stage.ts";

// The stage in real Chromium (SwiftShader WebGL), through the harness page served by Vite.

const OUT = resolve(REPO, "test-output/avatar");
const DEFAULT_VRM = resolve(OUT, "default.vrm");
/** The default character written as VRM 0.x by the generator (tests only; the build ships the 1.0 file). */
const DEFAULT_VRM0 = resolve(OUT, "default-vrm0.vrm");
const FIXTURE = {
  mtoon: resolve(FIXTURES, "VRMC_materials_mtoon_UV_Animation_Test.vrm"),
  overrides: resolve(FIXTURES, "VRMC_vrm_expressions_isBinary_Overrides.vrm"),
  overridden: resolve(FIXTURES, "VRMC_vrm_expressions_isBinary_Overridden.vrm"),
  vrma: resolve(FIXTURES, "test.vrma"),
};

let h: Harness;
const consoleLog: ConsoleMessage[] = [];
const url = (path: string) => h.fileUrl(path);

type Px = { hash: number; opaque: number; total: number; box: [number, number, number, number] };
let lastOptions = "";
/** A manual stage with the given options; tests with the same options share one (each new WebGL context recompiles every shader). */
const create = async (opts: Record<string, unknown> = {}) => {
  const options = { manual: true, idle: false, antialias: false, ...opts };
  if (JSON.stringify(options) === lastOptions) return;
  lastOptions = JSON.stringify(options);
  await h.page.evaluate((o) => window.harness.create(o), options);
};
const load = (path: string) => h.page.evaluate((u) => window.harness.load(u), url(path));
const step = (dt: number, frames = 1): Promise<Px> =>
  h.page.evaluate(([d, f]) => window.harness.step(d, f), [dt, frames] as const);
const inspect = () => h.page.evaluate(() => window.harness.inspect());
const setSize = (w: number, hgt: number) =>
  h.page.evaluate(([a, b]) => window.harness.setSize(a, b), [w, hgt] as const);
const setExpression = (name: string, w: number) =>
  h.page.evaluate(([n, v]) => window.harness.setExpression(n, v), [name, w] as const);
const worldPosition = async (name: string) =>
  (await h.page.evaluate((n) => window.harness.worldPosition(n), name))!;
const snapshot = (key: string) => h.page.evaluate((k) => window.harness.snapshot(k), key);
const compare = (a: string, b: string) =>
  h.page.evaluate(([x, y]) => window.harness.compare(x, y, 24), [a, b] as const);
const moveCharacter = (x: number, yaw: number) =>
  h.page.evaluate(([a, b]) => window.harness.moveCharacter(a, b), [x, yaw] as const);
/** The spring-bone chain tips of the default character (ahoge and twin tails). */
const SPRING_TIPS = ["hair_ahoge_3", "hair_tailL_4", "hair_tailR_4"];
/** Steps a frame per entry of `path` ([x, yaw] of the character, or null to leave it); tip positions in head space. */
const springRun = (path: Array<[number, number] | null>) =>
  h.page.evaluate(([p, t]) => window.harness.springRun(p, 1 / 60, t), [path, SPRING_TIPS] as const);
const still = (frames: number) => Array<null>(frames).fill(null);
type Vec = [number, number, number];
const sub = (a: Vec, b: Vec): Vec => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a: Vec, b: Vec) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const dist = (a: Vec, b: Vec) => Math.sqrt(dot(sub(a, b), sub(a, b)));
/** Largest distance of any tip, over `frames`, from where it was in `rest`. */
const maxDrift = (frames: Array<Record<string, Vec>>, rest: Record<string, Vec>, tip?: string) =>
  Math.max(...frames.flatMap((f) => (tip ? [tip] : SPRING_TIPS).map((t) => dist(f[t]!, rest[t]!))));

beforeAll(async () => {
  await mkdir(OUT, { recursive: true });
  await generateDefaultVrm(DEFAULT_VRM);
  await generateVrm0(DEFAULT_VRM0);
  h = await startHarness([OUT]);
  h.page.on("console", (m) => consoleLog.push(m));
}, 240_000);

afterAll(async () => {
  await h?.close();
});

describe("avatar stage in Chromium", () => {
  it("loads and draws the generated default and every shared fixture model", async () => {
    await create();
    await setSize(160, 200);
    for (const path of [DEFAULT_VRM, FIXTURE.mtoon, FIXTURE.overrides, FIXTURE.overridden]) {
      const before = consoleLog.length;
      const r = await load(path);
      expect(r, path).toMatchObject({ ok: true, result: { status: "loaded", specVersion: "1" } });
      const px = await step(1 / 60, 2);
      expect(px.opaque, path).toBeGreaterThan(px.total * 0.02);
      if (path === DEFAULT_VRM) {
        // The default character must load without a single warning from three-vrm or three.js.
        const noise = consoleLog.slice(before).filter((m) => m.type() === "warning" || m.type() === "error");
        expect(noise.map((m) => m.text())).toEqual([]);
      }
    }
  }, 240_000);

  it("frames the whole body or the bust, whatever the model's size", async () => {
    await create({ framing: "full" });
    await setSize(120, 160);
    for (const path of [DEFAULT_VRM, FIXTURE.mtoon]) {
      await load(path);
      const { box } = await step(1 / 60);
      // Drawn, inside the canvas with a margin, and filling a good part of its height.
      expect(box[1], path).toBeGreaterThan(0);
      expect(box[3], path).toBeLessThan(159);
      expect(box[3] - box[1], path).toBeGreaterThan(160 * 0.5);
    }
    await create({ framing: "bust" });
    await setSize(120, 160);
    await load(DEFAULT_VRM);
    const bust = await step(1 / 60);
    const full = (await inspect()).camera;
    await create({ framing: "full" });
    await setSize(120, 160);
    await load(DEFAULT_VRM);
    await step(1 / 60);
    // The bust camera sits higher (at the head) and closer than the whole-body camera.
    expect(full.position[1]).toBeGreaterThan((await inspect()).camera.position[1]);
    expect(full.position[2]).toBeLessThan((await inspect()).camera.position[2]);
    expect(bust.box[3]).toBe(159); // the bust runs off the bottom edge
  }, 240_000);

  it("follows the isBinary override rules of the VRM spec's samples", async () => {
    await create();
    await setSize(160, 160);
    const render = async (happy: number, blink: number) => {
      await setExpression("happy", happy);
      await setExpression("blink", blink);
      return (await step(0)).hash;
    };
    // Overrides: a binary happy (overrideBlink blend) blocks blink only when its value is above 0.5.
    expect((await load(FIXTURE.overrides)).ok).toBe(true);
    expect(await render(0.6, 1)).toBe(await render(0.6, 0));
    expect(await render(0.4, 1)).toBe(await render(0, 1));
    expect(await render(0.4, 1)).not.toBe(await render(0.4, 0));
    // Overridden: a binary blink is fully suppressed by any non-zero happy.
    expect((await load(FIXTURE.overridden)).ok).toBe(true);
    expect(await render(0.3, 1)).toBe(await render(0.3, 0));
    expect(await render(0, 1)).not.toBe(await render(0, 0));
  }, 240_000);

  it("plays a cue from the scripted backend when the text reveal reaches its offset", async () => {
    // A real Responses stream from the scripted backend, through the chat engine and generate_express:
    // speech, a cue, more speech, a second cue, the last words.
    const call = (id: string, args: Cue) => ({
      type: "function_call",
      id: `fc_${id}`,
      call_id: id,
      name: GENERATE_EXPRESS,
      arguments: JSON.stringify(args),
    });
    const first = call("c1", { emotion_id: "happy", motion_id: "wave", caption: "bright" });
    const second = call("c2", { emotion_id: "sad" });
    const backend = await startScriptedBackend([
      {
        body: sse(
          { type: "response.created", response: { id: "r1" } },
          { type: "response.output_text.delta", delta: "Oh, hello there! " },
          { type: "response.output_item.added", output_index: 1, item: first },
          { type: "response.output_text.delta", delta: "It is so good to see you again. " },
          { type: "response.output_item.added", output_index: 2, item: second },
          { type: "response.output_text.delta", delta: "Truly." },
          { type: "response.completed", response: { id: "r1", output: [first, second] } },
        ),
      },
    ]);
    let text = "";
    const cues: AnchoredCue[] = [];
    try {
      const engine = createChatEngine({ transport: "responses", baseUrl: backend.url, model: "m" });
      await engine.runTurn({
        text: "hi",
        tools: [createGenerateExpressTool(DEFAULT_VOCABULARY)],
        presetId: "p1",
        onEvent: (e) => {
          if (e.type === "text") text += e.delta;
          if (e.type === "cue") cues.push({ offset: e.offset, cue: e.arguments as Cue });
        },
      });
    } finally {
      await backend.close();
    }
    expect(cues.map((c) => c.offset)).toEqual([17, 49]);

    // The stage takes the vocabulary's expression weights and clips, as the app will pass them.
    await create({
      blendIn: 0.2,
      blendOut: 0.3,
      emotions: Object.fromEntries(DEFAULT_VOCABULARY.emotions.map((e) => [e.id, e.expression])),
      motions: Object.fromEntries(DEFAULT_VOCABULARY.motions.map((m) => [m.id, m.clip])),
    });
    await setSize(80, 100);
    await load(DEFAULT_VRM);
    const frames = await h.page.evaluate(
      ([t, c]) => window.harness.reply(t, c, 3, 1 / 30, ["happy", "sad"]),
      [text, cues] as const,
    );
    const firstAt = (pred: (f: (typeof frames)[number]) => boolean) => frames.findIndex(pred);
    const waveStart = firstAt((f) => f.motion === "wave");
    expect(frames[waveStart]!.position).toBe(18); // the first reveal step (3 characters a frame) at or past 17
    expect(frames[waveStart - 1]!.position).toBeLessThan(17);
    expect(frames[waveStart]!.played).toEqual(["happy/wave@18"]);
    for (const f of frames.slice(0, waveStart)) {
      expect(f.expressions.happy).toBe(0);
      expect(f.motion).toBeNull();
    }
    expect(frames[waveStart]!.expressions.happy).toBeGreaterThan(0);
    expect(frames[waveStart + 6]!.expressions.happy).toBe(1);
    const sadStart = firstAt((f) => (f.expressions.sad ?? 0) > 0);
    expect(frames[sadStart]!.position).toBe(51);
    expect(frames[sadStart]!.played).toEqual(["happy/wave@18", "sad/@51"]);
    expect(frames.at(-1)!.expressions).toEqual({ happy: 0, sad: 1 });
  }, 240_000);

  it("plays a VRMA clip mapped to a motion id, and ignores unknown ids", async () => {
    await create({ motions: { ...DEFAULT_MOTIONS, greet: "vrma_test" } });
    await setSize(80, 100);
    await load(DEFAULT_VRM);
    await h.page.evaluate((u) => window.harness.loadClip("vrma_test", u), url(FIXTURE.vrma));
    await step(1 / 30);
    const rest = (await inspect()).bones;
    const result = await h.page.evaluate(() =>
      window.harness.playCue({ motion_id: "greet", emotion_id: "nope" }),
    );
    expect(result).toEqual({ motion: "played", emotion: "unknown" });
    await step(1 / 30, 12);
    const moving = await inspect();
    expect(moving.motion).toBe("greet");
    expect(moving.bones).not.toEqual(rest);
    expect(await h.page.evaluate(() => window.harness.playCue({ motion_id: "moonwalk" }))).toEqual({
      motion: "unknown",
      emotion: "none",
    });
  }, 240_000);

  it("keeps the previous model when a file is broken, with a clear message", async () => {
    await create();
    await setSize(80, 100);
    await load(DEFAULT_VRM);
    const garbage = await h.page.evaluate(() => window.harness.load([1, 2, 3, 4, 5, 6, 7, 8]));
    expect(garbage).toEqual({ ok: false, error: MODEL_FILE_ERRORS.notGlb });
    const missing = await load(resolve(OUT, "no-such-model.vrm"));
    expect(missing.ok).toBe(false);
    expect(!missing.ok && missing.error.startsWith(LOAD_ERRORS.unreadable)).toBe(true);
    const animationOnly = await load(FIXTURE.vrma);
    expect(animationOnly).toEqual({ ok: false, error: LOAD_ERRORS.notVrm });
    expect((await inspect()).loaded).toBe("Yui");
    expect((await step(1 / 60)).opaque).toBeGreaterThan(0);
  }, 240_000);

  it("loads a .vrm dropped on the canvas, and refuses a dropped non-VRM with a message", async () => {
    await create();
    await setSize(80, 100);
    await load(FIXTURE.mtoon);
    await h.page.evaluate(() => window.harness.attachDrop());
    expect(await h.page.evaluate((u) => window.harness.dropFile("yui.vrm", u), url(DEFAULT_VRM))).toBe(true);
    await h.page.waitForFunction(() => window.harness.dropped.length === 1, null, { timeout: 60_000 });
    expect(await h.page.evaluate(() => window.harness.dropped)).toEqual(["loaded: Yui"]);
    await h.page.evaluate((u) => window.harness.dropFile("dance.vrma", u), url(FIXTURE.vrma));
    await h.page.waitForFunction(() => window.harness.dropped.length === 2, null, { timeout: 60_000 });
    expect((await h.page.evaluate(() => window.harness.dropped))[1]).toBe(
      `error: ${MODEL_FILE_ERRORS.notVrm}`,
    );
    expect((await inspect()).loaded).toBe("Yui");
  }, 240_000);

  it("shows only the newest of overlapping loads", async () => {
    await create();
    await setSize(80, 100);
    for (const [first, last, name] of [
      [FIXTURE.mtoon, DEFAULT_VRM, "Yui"],
      [DEFAULT_VRM, FIXTURE.mtoon, "VRMC_materials_mtoon UV Animation Test"],
    ] as const) {
      const results = await h.page.evaluate((u) => window.harness.loadRace(u), [url(first), url(last)]);
      expect(results).toEqual([
        { status: "superseded" },
        expect.objectContaining({ status: "loaded", name }),
      ]);
      expect((await inspect()).loaded).toBe(name);
    }
  }, 240_000);

  it("leaves GPU resources and the JS heap where they started after twenty model switches", async () => {
    await create();
    await setSize(64, 80);
    const cdp = await h.page.context().newCDPSession(h.page);
    const heap = async () => {
      await cdp.send("HeapProfiler.collectGarbage");
      await cdp.send("HeapProfiler.collectGarbage");
      return (await cdp.send("Runtime.getHeapUsage")).usedSize;
    };
    const models = [url(DEFAULT_VRM), url(FIXTURE.mtoon)];
    const cycle = (count: number) =>
      h.page.evaluate(([m, n]) => window.harness.cycleModels(m, n), [models, count] as const);
    // Both runs end on the same model. Warm-up switches compile every shader program both models need.
    expect(await cycle(4)).toEqual(Array(4).fill("loaded"));
    const start = { gpu: (await inspect()).renderer, heap: await heap() };
    expect(await cycle(20)).toEqual(Array(20).fill("loaded"));
    const end = { gpu: (await inspect()).renderer, heap: await heap() };
    expect(end.gpu.geometries).toBe(start.gpu.geometries);
    expect(end.gpu.textures).toBe(start.gpu.textures);
    expect(end.gpu.programs).toBeLessThanOrEqual(start.gpu.programs + 2);
    expect(end.heap).toBeLessThan(start.heap * 1.1 + 2_000_000);
    await cdp.detach();
  }, 300_000);

  it("stops rendering while the window is hidden and resumes when shown", async () => {
    lastOptions = "";
    await h.page.evaluate(() => window.harness.create({ antialias: false, idle: true }));
    await setSize(64, 80);
    await load(DEFAULT_VRM);
    await h.page.waitForFunction(() => window.harness.inspect().frames > 3, null, { timeout: 120_000 });
    await h.page.evaluate(() => window.harness.setHidden(true));
    const hidden = await inspect();
    expect(hidden.running).toBe(false);
    await h.page.waitForTimeout(1000);
    expect((await inspect()).frames).toBe(hidden.frames);
    await h.page.evaluate(() => window.harness.setHidden(false));
    expect((await inspect()).running).toBe(true);
    await h.page.waitForFunction((n) => window.harness.inspect().frames > n + 2, hidden.frames, {
      timeout: 120_000,
    });
  }, 240_000);

  it("blinks on its own and reacts to a click on the character, not on the background", async () => {
    await create({ idle: true });
    await setSize(120, 160);
    await load(DEFAULT_VRM);
    // The first blink comes 2 s into idle life; it lasts a sixth of a second, so sample finely.
    await step(1.95);
    const blink: number[] = [];
    for (let i = 0; i < 8; i++) {
      await step(0.03);
      blink.push((await inspect()).expressions.blink ?? 0);
    }
    expect(Math.max(...blink)).toBeGreaterThan(0.5);
    expect(blink.at(-1)).toBe(0);
    const { box } = await step(1 / 60);
    const canvas = await h.page.locator("canvas").boundingBox();
    await h.page.mouse.click(canvas!.x + 2, canvas!.y + 2);
    await step(1 / 60);
    expect((await inspect()).motion).toBeNull();
    await h.page.mouse.click(canvas!.x + (box[0] + box[2]) / 2, canvas!.y + (box[1] + box[3]) / 2);
    await step(1 / 60);
    expect((await inspect()).motion).toBe("poke_reaction");
  }, 240_000);

  it("stays natural over a long idle: bounded turns, and an ambient motion now and then", async () => {
    await create({ idle: true });
    await setSize(48, 64);
    await load(DEFAULT_VRM);
    const run = await h.page.evaluate(() => window.harness.idleRun(45, 0.1));
    // Idle offsets sit on top of the animation and never accumulate (the head keeps its small gaze turn).
    expect(run.maxHeadDeg).toBeLessThan(35);
    expect(run.maxSpineDeg).toBeLessThan(15);
    expect(run.motions.some((m) => m === "idle_stretch" || m === "idle_look_around")).toBe(true);
  }, 240_000);

  it("loads a VRM 0.x model turned to face the camera, its presets driven by the emotions, blink working, without a warning", async () => {
    const v0 = (readGlbJson(await readFile(DEFAULT_VRM0)) as { extensions: { VRM: V0.VRM } }).extensions.VRM;
    // Which morph each 0.x preset drives, read from the file: the emotion must reach it through three-vrm's
    // 0.x preset names (happy is joy, sad is sorrow, relaxed is fun), custom groups by their own name.
    const morphOf = (preset: string, name = preset) =>
      v0.blendShapeMaster!.blendShapeGroups!.find((g) =>
        g.presetName === "unknown" ? g.name === name : g.presetName === preset,
      )!.binds![0]!.index!;
    const EMOTION_PRESETS: Array<[emotion: string, preset: string]> = [
      ["happy", "joy"],
      ["sad", "sorrow"],
      ["angry", "angry"],
      ["relaxed", "fun"],
      ["surprised", "surprised"],
    ];
    await create();
    await setSize(120, 160);
    await load(DEFAULT_VRM);
    // Right after a load the hair only sags under gravity from its rest shape; a 0.x model's springs must
    // do the same, not start from where they were before the model was turned to face the camera.
    const sag = async () => {
      const { frames } = await springRun(still(30));
      return maxDrift(frames, frames[0]!);
    };
    const v1sag = await sag();
    await snapshot("v1");
    const { expressions: v1expressions, camera: v1camera } = await inspect();
    const v1names = Object.keys(v1expressions).sort();
    const poke = async (key: string) => {
      await h.page.evaluate(() => window.harness.playCue({ motion_id: "poke_reaction" }));
      await step(1 / 60, 9);
      await snapshot(key);
    };
    await poke("v1-poke");

    const before = consoleLog.length;
    const r = await load(DEFAULT_VRM0);
    // specVersion "0" is the stage's reading of three-vrm's vrm.meta.metaVersion.
    expect(r).toEqual({ ok: true, result: { status: "loaded", name: "Yui", specVersion: "0" } });
    expect(Math.abs((await sag()) - v1sag)).toBeLessThan(0.02);
    const px = await step(1 / 60, 2);
    expect(px.opaque).toBeGreaterThan(px.total * 0.02);
    // Framed as the 1.0 file is (its bounds are measured after the half turn).
    const { camera: v0camera } = await inspect();
    for (const k of ["position", "target"] as const)
      for (const [i, v] of v0camera[k].entries()) expect(v, k).toBeCloseTo(v1camera[k][i]!, 4);
    // It faces the camera (on +Z): the eyes sit in front of the head bone, and the picture is the 1.0 file's.
    const camera = v0camera.position;
    const head = await worldPosition("head");
    const eye = await worldPosition("leftEye");
    expect(dist(eye, camera)).toBeLessThan(dist(head, camera) - 0.05);
    await snapshot("v0");
    const sameAsV1 = await compare("v1", "v0");
    // Procedural motions are authored for 1.0 bones; on the 0.x model they must look the same.
    await poke("v0-poke");
    const pokeAsV1 = await compare("v1-poke", "v0-poke");
    expect(sameAsV1).toBeLessThan(0.03);
    expect(pokeAsV1).toBeLessThan(0.03);
    expect(await compare("v1", "v1-poke")).toBeGreaterThan(0.2); // the motion does change the picture

    // The same expressions as the 1.0 file, under the 1.0 names the expression player uses.
    expect(Object.keys((await inspect()).expressions).sort()).toEqual(v1names);
    // The face's primitives (the only meshes with morph targets) all carry the same influences.
    const face = async () => Object.values((await inspect()).morphs)[0]!;
    for (const [emotion, preset] of EMOTION_PRESETS) {
      expect(await h.page.evaluate((e) => window.harness.playCue({ emotion_id: e }), emotion)).toEqual({
        emotion: "played",
        motion: "none",
      });
      await step(0.1, 6);
      expect((await inspect()).expressions[emotion], emotion).toBe(1);
      expect((await face())[morphOf(preset, emotion)], `${emotion} through ${preset}`).toBeCloseTo(1, 5);
    }
    await h.page.evaluate(() => window.harness.playCue({ emotion_id: "neutral" }));
    await step(0.1, 6);
    const open = await step(0);
    await setExpression("blink", 1);
    const shut = await step(0);
    expect((await face())[morphOf("blink")]).toBeCloseTo(1, 5);
    expect(shut.hash).not.toBe(open.hash);
    await setExpression("blink", 0);
    expect((await step(0)).hash).toBe(open.hash);
    const noise = consoleLog.slice(before).filter((m) => m.type() === "warning" || m.type() === "error");
    expect(noise.map((m) => m.text())).toEqual([]);
    // Control: the same model left facing away (as without VRMUtils.rotateVRM0) is a different picture.
    await moveCharacter(0, Math.PI);
    await snapshot("v0-away");
    const awayFromV1 = await compare("v1", "v0-away");
    await moveCharacter(0, 0);
    expect(awayFromV1).toBeGreaterThan(0.15);
  }, 240_000);

  it("swings the spring-bone hair when the character moves, lagging behind and settling back, and holds it still otherwise", async () => {
    await create();
    await setSize(48, 64); // the hair is measured in the scene, not in pixels
    await load(DEFAULT_VRM);
    await springRun(still(180)); // the hair settles under gravity after the load
    // Left alone, the settled hair does not move at all.
    const { frames: quiet } = await springRun(still(60));
    const rest = quiet[0]!;
    expect(maxDrift(quiet, rest)).toBeLessThan(1e-4);
    // A quick sideways shake of the whole character: 25 cm out in 6 frames and back in 6 (1.5 m/s).
    const shake: Array<[number, number] | null> = [
      ...Array.from({ length: 6 }, (_, i): [number, number] => [(0.25 * (i + 1)) / 6, 0]),
      ...Array.from({ length: 6 }, (_, i): [number, number] => [(0.25 * (5 - i)) / 6, 0]),
      ...still(240),
    ];
    const { frames, sideways } = await springRun(shake);
    for (const tip of SPRING_TIPS) {
      // Displacement from rest along the direction of the first sweep, in the head's space.
      const along = frames.map((f) => dot(sub(f[tip]!, rest[tip]!), sideways));
      // Lags: left behind while the head sweeps out; swings: carried past rest to the other side.
      expect(Math.min(...along.slice(0, 6)), `${tip} lags`).toBeLessThan(-0.02);
      expect(Math.max(...along), `${tip} swings`).toBeGreaterThan(0.02);
      // Settles back to its rest shape once the character stands still (4 s later).
      expect(maxDrift(frames.slice(-30), rest, tip), `${tip} settles`).toBeLessThan(1e-3);
    }
  }, 240_000);

  it("turns the eyes and head toward the pointer", async () => {
    await create();
    await setSize(160, 200);
    await load(DEFAULT_VRM);
    const look = async (x: number) => {
      await h.page.evaluate((px) => window.harness.setPointer(px, 0.3), x);
      const px = await step(1 / 60, 2);
      return { hash: px.hash, head: (await inspect()).bones.head! };
    };
    const left = await look(-1);
    const right = await look(1);
    expect(left.hash).not.toBe(right.hash);
    // Screen left is the character's right (-X): the head yaws negative about Y, and positive for screen right.
    expect(left.head[1]).toBeLessThan(0);
    expect(right.head[1]).toBeGreaterThan(0);
  }, 240_000);

  it("renders the default character's expressions and motions, saved as screenshots", async () => {
    await create({ framing: "bust", antialias: true, blendIn: 0.1 });
    await setSize(360, 420);
    await load(DEFAULT_VRM);
    const shots: Record<string, number> = {};
    for (const emotion of ["neutral", "happy", "sad", "angry", "surprised", "relaxed", "shy", "thinking"]) {
      await h.page.evaluate((e) => window.harness.playCue({ emotion_id: e }), emotion);
      shots[emotion] = (await step(0.25, 2)).hash;
      await h.page
        .locator("canvas")
        .screenshot({ path: resolve(OUT, `default-${emotion}.png`), omitBackground: true });
      if (emotion !== "neutral") {
        expect(shots[emotion], emotion).not.toBe(shots.neutral);
        // The face's morph targets really moved (what is drawn, after three-vrm's override rules).
        const morphs = Object.values((await inspect()).morphs).flat();
        expect(Math.max(...morphs), emotion).toBeGreaterThan(0.3);
      }
    }
    await h.page.evaluate(() => window.harness.playCue({ emotion_id: "happy", motion_id: "wave" }));
    await step(0.25, 4);
    await h.page
      .locator("canvas")
      .screenshot({ path: resolve(OUT, "default-happy-wave.png"), omitBackground: true });
    await create({ framing: "full", antialias: true });
    await setSize(360, 480);
    await load(DEFAULT_VRM);
    await h.page.evaluate(() => window.harness.playCue({ motion_id: "cheer", emotion_id: "happy" }));
    await step(0.15, 3);
    await h.page
      .locator("canvas")
      .screenshot({ path: resolve(OUT, "default-full-cheer.png"), omitBackground: true });
  }, 300_000);
});
