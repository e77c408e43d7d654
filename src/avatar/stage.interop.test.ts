import { resolve } from "node:path";
import type { ConsoleMessage } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testModelPaths, writeTestModels } from "../../tools/vrm-gen/test-models.ts";
import { expectIsBinaryRules, stageCalls } from "./harness/checks.ts";
import { FIXTURES, type Harness, REPO, startHarness } from "./harness/serve.ts";
import { MODEL_FILE_ERRORS } from "./model-file.ts";
import { DEFAULT_MOTIONS } from "./motions.ts";
import { LOAD_ERRORS } from "./stage.ts";

// Interop suite (`npm run test:interop`): the stage in Chromium on third-party files, the VRM specification's
// samples and three-vrm's example .vrma, read from ../shared/fixtures/vrm. `npm test` covers the same
// behaviours on models tools/vrm-gen generates (stage.browser.test.ts).

const SAMPLE = {
  mtoon: resolve(FIXTURES, "VRMC_materials_mtoon_UV_Animation_Test.vrm"),
  overrides: resolve(FIXTURES, "VRMC_vrm_expressions_isBinary_Overrides.vrm"),
  overridden: resolve(FIXTURES, "VRMC_vrm_expressions_isBinary_Overridden.vrm"),
  vrma: resolve(FIXTURES, "test.vrma"),
};
const DEFAULT_VRM = testModelPaths(REPO).default;

let h: Harness;
const consoleLog: ConsoleMessage[] = [];
const create = (opts: Record<string, unknown> = {}) =>
  h.page.evaluate((o) => window.harness.create(o), { manual: true, idle: false, antialias: false, ...opts });
const calls = () => stageCalls(h);
const url = (path: string) => calls().url(path);
const load = (path: string) => calls().load(path);
const step = (dt: number, frames = 1) => calls().step(dt, frames);
const setSize = (w: number, hgt: number) => calls().setSize(w, hgt);
const inspect = () => calls().inspect();

beforeAll(async () => {
  await writeTestModels(REPO);
  h = await startHarness([FIXTURES, resolve(DEFAULT_VRM, "..")]);
  h.page.on("console", (m) => consoleLog.push(m));
}, 240_000);

afterAll(async () => {
  await h?.close();
});

describe("avatar stage on third-party files", () => {
  it("loads and draws every VRM sample and frames its whole body", async () => {
    await create({ framing: "full" });
    await setSize(120, 160);
    for (const [path, name] of [
      [SAMPLE.mtoon, "VRMC_materials_mtoon UV Animation Test"],
      [SAMPLE.overrides, "isBinary overrides"],
      [SAMPLE.overridden, "isBinary overridden"],
    ] as const) {
      expect(await load(path), path).toEqual({
        ok: true,
        result: { status: "loaded", name, specVersion: "1" },
      });
      const px = await step(1 / 60, 2);
      expect(px.opaque, path).toBeGreaterThan(px.total * 0.02);
    }
    await load(SAMPLE.mtoon);
    const { box } = await step(1 / 60);
    expect(box[1]).toBeGreaterThan(0);
    expect(box[3]).toBeLessThan(159);
    expect(box[3] - box[1]).toBeGreaterThan(160 * 0.5);
  }, 240_000);

  it("runs the MToon sample's UV animation: scroll X, scroll Y and rotation at speed 1", async () => {
    await create();
    await setSize(80, 100);
    await load(SAMPLE.mtoon);
    await step(0); // the harness finds materials in the scene the stage last rendered
    const uv = () => h.page.evaluate(() => window.harness.uvAnimation());
    const before = await uv();
    await step(1 / 30, 15);
    const after = await uv();
    const moved = (name: string, k: "scrollX" | "scrollY" | "rotation") => after[name]![k] - before[name]![k];
    expect(moved("ScrollX", "scrollX")).toBeCloseTo(0.5, 5);
    expect(moved("ScrollY", "scrollY")).toBeCloseTo(0.5, 5);
    expect(moved("ScrollRot", "rotation")).toBeCloseTo(0.5, 5);
    expect(moved("ScrollX", "scrollY")).toBe(0);
  }, 240_000);

  it("follows the isBinary override rules of the VRM spec's samples", async () => {
    await create();
    await expectIsBinaryRules(calls(), SAMPLE);
  }, 240_000);

  it("plays three-vrm's example VRMA clip on the default character, and refuses it as a model", async () => {
    await create({ motions: { ...DEFAULT_MOTIONS, greet: "vrma_test" } });
    await setSize(80, 100);
    await load(DEFAULT_VRM);
    await h.page.evaluate((u) => window.harness.loadClip("vrma_test", u), url(SAMPLE.vrma));
    await step(1 / 30);
    const rest = (await inspect()).bones;
    expect(await h.page.evaluate(() => window.harness.playCue({ motion_id: "greet" }))).toEqual({
      motion: "played",
      emotion: "none",
    });
    await step(1 / 30, 12);
    const moving = await inspect();
    expect(moving.motion).toBe("greet");
    expect(moving.bones).not.toEqual(rest);
    expect(await load(SAMPLE.vrma)).toEqual({ ok: false, error: LOAD_ERRORS.notVrm });
    await h.page.evaluate(() => window.harness.attachDrop());
    await h.page.evaluate((u) => window.harness.dropFile("dance.vrma", u), url(SAMPLE.vrma));
    await h.page.waitForFunction(() => window.harness.dropped.length === 1, null, { timeout: 60_000 });
    expect(await h.page.evaluate(() => window.harness.dropped)).toEqual([
      `error: ${MODEL_FILE_ERRORS.notVrm}`,
    ]);
    expect((await inspect()).loaded).toBe("Yui");
  }, 240_000);
});
