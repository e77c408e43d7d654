import { mkdir } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { testModelPaths, writeTestModels } from "../../tools/vrm-gen/test-models.ts";
import { stageCalls } from "./harness/checks.ts";
import { type Harness, REPO, startHarness } from "./harness/serve.ts";
import { AMBIENT_MOTIONS, BED, POSTURE_CLIPS, SIT_SEAT } from "./motions.ts";
import { type PostureState, STANDING } from "./posture.ts";
import { AMBIENT_AFTER_POSTURE } from "./stage/idle.ts";

// Her postures on the stage in real Chromium (the avatar harness, SwiftShader WebGL) with the generated default
// character: each body state plays its clip, the bed comes and goes, standing returns to idle.

const OUT = resolve(REPO, "test-output/avatar");
const MODEL = testModelPaths(REPO);
let h: Harness;
const calls = () => stageCalls(h);
type Vec = [number, number, number];

const at = (s: Partial<PostureState>): PostureState => ({ ...STANDING, ...s });
const setPosture = (s: Partial<PostureState>) => h.page.evaluate((p) => window.harness.setPosture(p), at(s));
const setReduced = (on: boolean) => h.page.evaluate((v) => window.harness.setReducedMotion(v), on);
const pos = async (name: string) => (await h.page.evaluate((n) => window.harness.worldPosition(n), name))!;
const bed = () => h.page.evaluate(() => window.harness.bed());
/** The unit vector from one node of the character to another, in world space (+Y up, +Z toward the viewer). */
async function direction(from: string, to: string): Promise<Vec> {
  const [a, b] = [await pos(from), await pos(to)];
  const d: Vec = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
  const n = Math.hypot(...d);
  return d.map((x) => x / n) as Vec;
}
const deg = (rad: number) => (rad * 180) / Math.PI;
/** Angle of a direction from straight down (0: hanging, 90: horizontal). */
const fromDown = (v: Vec) => deg(Math.acos(-v[1]));
/** Steps `seconds` of frames of 1/30 s. */
const run = (seconds: number) => calls().step(1 / 30, Math.round(seconds * 30));
/** Sets the bed's state and, `seconds` later, finds the bed part way through its fade (neither gone nor whole). */
const midFade = async (s: Partial<PostureState>, seconds: number) => {
  await setPosture(s);
  await run(seconds);
  const opacity = await bed();
  expect(opacity).toBeGreaterThan(0);
  expect(opacity).toBeLessThan(1);
};
/** Canvas size (CSS pixels) of these tests. */
const SIZE = { width: 120, height: 200 };
/** Where a node is drawn across the canvas: -1 its left border, 1 its right border (the camera looks along -Z). */
async function acrossCanvas(name: string): Promise<number> {
  const { camera } = await calls().inspect();
  const half = Math.abs(camera.position[2] - camera.target[2]) * Math.tan((14 * Math.PI) / 180);
  return ((await pos(name))[0] - camera.target[0]) / ((half * SIZE.width) / SIZE.height);
}

beforeAll(async () => {
  await mkdir(OUT, { recursive: true });
  await writeTestModels(REPO);
  h = await startHarness([dirname(MODEL.default), OUT]);
  await h.page.evaluate(() => window.harness.create({ manual: true, idle: false, antialias: false }));
  await calls().setSize(SIZE.width, SIZE.height);
  expect((await calls().load(MODEL.default)).ok).toBe(true);
  await calls().step(1 / 30);
}, 240_000);

afterAll(async () => {
  await h?.close();
});

describe("her postures on the stage", () => {
  it("stands with her legs hanging and her spine up, then sits with her thighs forward, her seat where the host puts the edge", async () => {
    expect((await calls().inspect()).posture).toBeNull();
    const thigh = await direction("leftUpperLeg", "leftLowerLeg");
    expect(fromDown(thigh)).toBeLessThan(10);
    const standingHips = (await pos("hips"))[1];
    const standingFrame = await calls().step(0);

    await setPosture({ posture: "sitting" });
    await run(1);
    expect((await calls().inspect()).posture).toBe("sit");
    // The thighs point forward (toward the viewer), about 90° from hanging; the shins hang again.
    for (const side of ["left", "right"]) {
      const t = await direction(`${side}UpperLeg`, `${side}LowerLeg`);
      expect(fromDown(t), side).toBeGreaterThan(75);
      expect(fromDown(t), side).toBeLessThan(105);
      expect(t[2], side).toBeGreaterThan(0.9);
      expect(fromDown(await direction(`${side}LowerLeg`, `${side}Foot`)), side).toBeLessThan(40);
    }
    // Her seat (a thigh's thickness under the hips) is 30 % of the canvas height above its bottom, where the host
    // puts the edge she sits on (the camera does not move for sitting).
    const { camera } = await calls().inspect();
    const half = Math.abs(camera.position[2] - camera.target[2]) * Math.tan((14 * Math.PI) / 180);
    const seat = (await pos("hips"))[1] - 0.06;
    const share = (seat - (camera.target[1] - half)) / (2 * half);
    expect(share).toBeGreaterThan(SIT_SEAT - 0.04);
    expect(share).toBeLessThan(SIT_SEAT + 0.04);
    expect((await pos("hips"))[1]).toBeLessThan(standingHips * 0.7);
    // Her feet hang above the canvas bottom, drawn.
    expect((await pos("leftFoot"))[1]).toBeGreaterThan(camera.target[1] - half);
    // Her arms rest by her sides (upper arms within 25° of hanging down, not held out), her hands on the edge
    // beside her hips: at the seat's height, outside her thighs.
    const hips = await pos("hips");
    for (const side of ["left", "right"]) {
      expect(fromDown(await direction(`${side}UpperArm`, `${side}LowerArm`)), side).toBeLessThan(25);
      const hand = await pos(`${side}Hand`);
      expect(Math.abs(hand[1] - seat), side).toBeLessThan(0.06);
      expect(Math.abs(hand[0] - hips[0]), side).toBeGreaterThan(0.1);
    }
    const sitting = await calls().step(0);
    expect(sitting.box[1]).toBeGreaterThan(standingFrame.box[1] + 20);
    await h.page.screenshot({ path: resolve(OUT, "posture-sitting.png") });
  }, 120_000);

  it("walks sideways toward where she goes, climbs, peeks to either side and dangles while dragged", async () => {
    // Walking right: she turns toward the screen's right (+X), her legs swing through the cycle.
    await setPosture({ posture: "walking", moving: true, facing: 1 });
    await run(0.5);
    expect((await calls().inspect()).posture).toBe("walk_right");
    // Her hip line (right hip to left hip) runs along +X facing the viewer; turned right it points away (-Z).
    const hipLine = async () => direction("rightUpperLeg", "leftUpperLeg");
    expect((await hipLine())[2]).toBeLessThan(-0.8);
    const swing: number[] = [];
    for (let i = 0; i < 8; i++) {
      await run(1 / 8);
      swing.push((await direction("leftUpperLeg", "leftLowerLeg"))[0]);
    }
    expect(Math.max(...swing) - Math.min(...swing)).toBeGreaterThan(0.4);
    // Full frame rate while she travels.
    expect((await calls().inspect()).interval).toBe(0);
    await setPosture({ posture: "walking", moving: true, facing: -1 });
    await run(0.6);
    expect((await calls().inspect()).posture).toBe("walk_left");
    expect((await hipLine())[2]).toBeGreaterThan(0.8);

    await setPosture({ posture: "climbing", moving: true });
    await run(0.6);
    expect((await calls().inspect()).posture).toBe("climb");
    // She faces the window she climbs: her back to the viewer, her left hip on the screen's left.
    expect((await hipLine())[0]).toBeLessThan(-0.8);
    // One hand reaches above the head at some point of the cycle.
    let reach = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < 12; i++) {
      await run(0.1);
      reach = Math.max(reach, (await pos("leftHand"))[1] - (await pos("head"))[1]);
    }
    expect(reach).toBeGreaterThan(0);

    const lean = async () => (await direction("hips", "head"))[0];
    // The arm away from the window hangs relaxed; the hand on the window's side reaches out to her window's border,
    // where the host puts the window's edge.
    const hangs = async (side: string) => fromDown(await direction(`${side}UpperArm`, `${side}LowerArm`));
    await setPosture({ posture: "peeking", peek: "left" });
    await run(1);
    expect((await calls().inspect()).posture).toBe("peek_left");
    expect(await lean()).toBeLessThan(-0.15);
    expect(await hangs("right")).toBeLessThan(20);
    expect(await acrossCanvas("leftHand")).toBeGreaterThan(0.7);
    expect(await acrossCanvas("rightHand")).toBeLessThan(0.2);
    await setPosture({ posture: "peeking", peek: "right" });
    await run(1);
    expect((await calls().inspect()).posture).toBe("peek_right");
    expect(await lean()).toBeGreaterThan(0.15);
    expect(await hangs("left")).toBeLessThan(20);
    expect(await acrossCanvas("rightHand")).toBeLessThan(-0.7);
    expect(await acrossCanvas("leftHand")).toBeGreaterThan(-0.2);

    await setPosture({ posture: "dragging" });
    await run(0.6);
    const info = await calls().inspect();
    expect(info.posture).toBe("dangle");
    expect(info.interval).toBe(0);
    // The feet swing forward and back while she dangles.
    const feet: number[] = [];
    for (let i = 0; i < 8; i++) {
      await run(0.2);
      feet.push((await pos("leftFoot"))[2]);
    }
    expect(Math.max(...feet) - Math.min(...feet)).toBeGreaterThan(0.03);
  }, 180_000);

  it("goes to bed: the bed fades in, she lies down with her hips horizontal, sleeps with shut eyes, wakes and the bed fades out", async () => {
    await setPosture({});
    await run(1);
    expect(await bed()).toBeNull();
    const before = (await calls().inspect()).renderer.geometries;
    const standing = await calls().step(0);

    await midFade({ bed: "setup" }, 0.4);
    await run(1);
    expect(await bed()).toBe(1);
    expect((await calls().inspect()).posture).toBeNull();

    await setPosture({ posture: "lying", bed: "lying_down" });
    await run(0.2);
    expect((await calls().inspect()).posture).toBe("lie_down");
    await run(POSTURE_CLIPS.lie_down!.duration + 0.5);
    // Hips to spine near horizontal (her head toward the screen's left, where the pillow is).
    const spine = await direction("hips", "spine");
    expect(Math.abs(deg(Math.asin(spine[1])))).toBeLessThan(15);
    expect(spine[0]).toBeLessThan(-0.9);
    // On the mattress: above its top, below a standing hip.
    const hipsY = (await pos("hips"))[1];
    expect(hipsY).toBeGreaterThan(BED.height * 0.8);
    expect(hipsY).toBeLessThan(0.8);
    // The camera has pulled back to frame her lying across the bed: she is drawn inside the canvas, the bed
    // across most of its width (as large as a portrait window allows), standing on the floor where her feet stood.
    const lying = await calls().step(0);
    expect(lying.box[0]).toBeGreaterThan(0);
    expect(lying.box[2]).toBeLessThan(SIZE.width - 1);
    expect(lying.box[2] - lying.box[0]).toBeGreaterThan(SIZE.width * 0.8);
    expect(Math.abs(lying.box[3] - standing.box[3])).toBeLessThan(SIZE.height * 0.03);

    await setPosture({ posture: "lying", bed: "asleep" });
    await run(1);
    const asleep = await calls().inspect();
    expect(asleep.posture).toBe("sleep");
    expect(asleep.expressions.blink).toBe(1);
    await h.page.screenshot({ path: resolve(OUT, "posture-asleep.png") });

    await setPosture({ posture: "lying", bed: "waking" });
    await run(4);
    expect((await calls().inspect()).posture).toBe("wake");
    // Sitting up on the bed by now: the spine points up again, the eyes open.
    expect((await direction("hips", "spine"))[1]).toBeGreaterThan(0.9);
    expect((await calls().inspect()).expressions.blink).toBe(0);

    await midFade({ bed: "fading" }, 0.3);
    await run(1);
    expect(await bed()).toBeNull();
    // The bed's meshes are freed with it.
    expect((await calls().inspect()).renderer.geometries).toBe(before);
  }, 180_000);

  it("follows the host's bed phase: asleep before her lie-down clip is through, she lies at once", async () => {
    await setPosture({ bed: "setup" });
    await run(1.2);
    // The host's lie-down is shorter than the clip (its timings are configuration): the clip has her still
    // sitting up when the host says she sleeps.
    await setPosture({ posture: "lying", bed: "lying_down" });
    await run(0.5);
    expect((await direction("hips", "spine"))[1]).toBeGreaterThan(0.9);
    await setPosture({ posture: "lying", bed: "asleep" });
    await run(1 / 30);
    expect((await calls().inspect()).posture).toBe("sleep");
    const spine = await direction("hips", "spine");
    expect(Math.abs(deg(Math.asin(spine[1])))).toBeLessThan(15);
    expect(spine[0]).toBeLessThan(-0.9);
    await setPosture({ bed: "fading" });
    await run(1.5);
    expect(await bed()).toBeNull();
  }, 120_000);

  it("returns to idle when standing again, and shows postures as still poses under reduced motion", async () => {
    const rest = async () => {
      await setPosture({});
      await run(1);
      return (await calls().inspect()).bones;
    };
    await calls().step(0);
    const idleBones = await rest();
    await setPosture({ posture: "sitting" });
    await run(1);
    expect((await calls().inspect()).bones).not.toEqual(idleBones);
    const back = await rest();
    expect((await calls().inspect()).posture).toBeNull();
    for (const [bone, q] of Object.entries(back)) {
      const i = idleBones[bone]!;
      // The same rotation (q and -q are the same): |dot| near 1.
      expect(Math.abs(q[0] * i[0] + q[1] * i[1] + q[2] * i[2] + q[3] * i[3]), bone).toBeGreaterThan(0.9999);
    }

    await setReduced(true);
    await setPosture({ posture: "walking", moving: true, facing: 1 });
    await run(0.5);
    const still = await direction("leftUpperLeg", "leftLowerLeg");
    await run(0.37);
    expect(await direction("leftUpperLeg", "leftLowerLeg")).toEqual(still);
    expect((await calls().inspect()).posture).toBe("walk_right");
    // Up on her feet, where a clip first built after the bed scene still puts her hips (not on the bed).
    const hips = await pos("hips");
    expect(hips[1]).toBeGreaterThan(0.7);
    expect(Math.abs(hips[2])).toBeLessThan(0.05);
    // Turned toward where she goes even standing still.
    expect((await direction("rightUpperLeg", "leftUpperLeg"))[2]).toBeLessThan(-0.8);
    await setReduced(false);
    await run(0.37);
    expect(await direction("leftUpperLeg", "leftLowerLeg")).not.toEqual(still);
    await rest();
  }, 120_000);

  it("stands a while after a posture before idle life's ambient motions start: no stretch on arrival", async () => {
    await h.page.evaluate(() => window.harness.create({ manual: true, idle: true, antialias: false }));
    await calls().setSize(SIZE.width, SIZE.height);
    expect((await calls().load(MODEL.default)).ok).toBe(true);
    const motions = async () =>
      (await calls().inspect()).events.filter((e) => e.type === "motion").map((e) => e.id);
    // Sitting past idle life's first ambient wait (14 s): none plays on her perch.
    await setPosture({ posture: "sitting" });
    await calls().step(0.1, 200);
    expect(await motions()).toEqual([]);
    // Down again: not at once, only after AMBIENT_AFTER_POSTURE seconds of standing.
    await setPosture({});
    await calls().step(0.1, AMBIENT_AFTER_POSTURE * 10 - 10);
    expect(await motions()).toEqual([]);
    await calls().step(0.1, 20);
    const played = await motions();
    expect(played).toHaveLength(1);
    expect(AMBIENT_MOTIONS).toContain(played[0]);
  }, 120_000);
});
