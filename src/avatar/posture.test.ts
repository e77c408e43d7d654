import { describe, expect, it } from "vitest";
import { BED_PHASES, POSTURES } from "../protocol/body.ts";
import { BASE_POSE, mirrored, POSTURE_CLIPS, turned } from "./motions.ts";
import { type PostureState, postureShow, STANDING, showsAtOnce } from "./posture.ts";

const at = (s: Partial<PostureState>): PostureState => ({ ...STANDING, ...s });

describe("postureShow", () => {
  it("plays each posture's clip", () => {
    const table: Array<[Partial<PostureState>, string | null]> = [
      [{}, null],
      [{ posture: "walking", moving: true, facing: -1 }, "walk_left"],
      [{ posture: "walking", moving: true, facing: 1 }, "walk_right"],
      [{ posture: "walking", moving: true, facing: 0 }, "walk"],
      [{ posture: "climbing", moving: true }, "climb"],
      [{ posture: "sitting" }, "sit"],
      [{ posture: "peeking", peek: "left" }, "peek_left"],
      [{ posture: "peeking", peek: "right" }, "peek_right"],
      [{ posture: "dragging" }, "dangle"],
      [{ posture: "lying" }, "sleep"],
      // A fall after the user let go of her: she dangles, then lands.
      [{ posture: "standing", moving: true, fall: "falling" }, "dangle"],
      [{ posture: "standing", moving: true, fall: "landing" }, "land"],
    ];
    for (const [s, clip] of table) expect(postureShow(at(s)).clip, JSON.stringify(s)).toBe(clip);
  });

  it("follows the bed's phases: appears at setup, lie-down, sleep with shut eyes, wake, gone when fading", () => {
    const phase = (bed: PostureState["bed"], posture: PostureState["posture"] = "lying") =>
      postureShow(at({ posture, bed }));
    expect(phase("setup", "standing")).toMatchObject({ clip: null, bed: true, lyingFrame: false });
    expect(phase("lying_down")).toMatchObject({
      clip: "lie_down",
      bed: true,
      eyesClosed: false,
      lyingFrame: true,
    });
    expect(phase("asleep")).toMatchObject({ clip: "sleep", bed: true, eyesClosed: true, lyingFrame: true });
    expect(phase("waking")).toMatchObject({ clip: "wake", bed: true, lyingFrame: true });
    expect(phase("fading", "standing")).toMatchObject({ clip: null, bed: false, lyingFrame: false });
    expect(phase(null, "standing")).toMatchObject({ clip: null, bed: false });
  });

  it("lets a drag outrank the bed, and asks for every frame only while she travels or is dragged", () => {
    expect(postureShow(at({ posture: "dragging", bed: "asleep" }))).toMatchObject({
      clip: "dangle",
      bed: false,
    });
    expect(postureShow(at({ posture: "dragging" })).fullRate).toBe(true);
    expect(postureShow(at({ posture: "walking", moving: true, facing: 1 })).fullRate).toBe(true);
    expect(postureShow(at({ posture: "sitting" })).fullRate).toBe(false);
    expect(postureShow(at({ posture: "lying", bed: "asleep" })).fullRate).toBe(false);
  });

  it("shows the host's next bed phase at once (asleep, waking), and crossfades every other change", () => {
    const show = (s: Partial<PostureState>) => postureShow(at(s));
    const lyingDown = show({ posture: "lying", bed: "lying_down" });
    const asleep = show({ posture: "lying", bed: "asleep" });
    const waking = show({ posture: "lying", bed: "waking" });
    expect(showsAtOnce(lyingDown, asleep)).toBe(true);
    expect(showsAtOnce(asleep, waking)).toBe(true);
    const crossfaded: Array<[Partial<PostureState>, Partial<PostureState>]> = [
      [{ bed: "setup" }, { posture: "lying", bed: "lying_down" }],
      [{ posture: "lying", bed: "waking" }, { bed: "fading" }],
      [{ posture: "lying", bed: "lying_down" }, { bed: "fading" }],
      [{ posture: "climbing", moving: true }, { posture: "sitting" }],
      [
        { posture: "climbing", moving: true },
        { posture: "peeking", peek: "left" },
      ],
      [{ posture: "sitting" }, { posture: "climbing", moving: true }],
    ];
    for (const [a, b] of crossfaded)
      expect(showsAtOnce(show(a), show(b)), JSON.stringify([a, b])).toBe(false);
  });

  it("names only defined clips for every posture and bed phase", () => {
    for (const posture of POSTURES)
      for (const bed of [null, ...BED_PHASES])
        for (const facing of [-1, 0, 1] as const) {
          const { clip } = postureShow(at({ posture, bed, facing, peek: "right" }));
          if (clip !== null) expect(POSTURE_CLIPS[clip], `${posture}/${bed}`).toBeDefined();
        }
  });
});

describe("posture clips", () => {
  it("loop seamlessly: a loop's every bone ends where it starts", () => {
    for (const [id, clip] of Object.entries(POSTURE_CLIPS)) {
      expect(clip.still, id).toBeGreaterThanOrEqual(0);
      expect(clip.still, id).toBeLessThanOrEqual(clip.duration);
      if (!clip.loop) continue;
      for (const [bone, keys] of Object.entries(clip.bones)) {
        expect(keys![0]![0], `${id}.${bone}`).toBe(0);
        expect(keys!.at(-1), `${id}.${bone}`).toEqual([clip.duration, keys![0]![1]]);
      }
    }
  });

  it("lie down ends lying (hips turned 90° about Z) and the wake clip starts there, lasts about 22 s and ends standing", () => {
    const lie = POSTURE_CLIPS.lie_down!;
    const wake = POSTURE_CLIPS.wake!;
    expect(lie.bones.hips!.at(-1)).toEqual([lie.duration, [0, 0, 90]]);
    expect(wake.bones.hips![0]).toEqual([0, [0, 0, 90]]);
    expect(wake.duration).toBe(22);
    // Every bone the wake clip moves is back at the base pose (or the rest) by its last key.
    for (const [bone, keys] of Object.entries(wake.bones)) {
      const rest = BASE_POSE[bone as keyof typeof BASE_POSE] ?? [0, 0, 0];
      expect(keys!.at(-1)![0], bone).toBeLessThan(wake.duration);
      expect(keys!.at(-1)![1], bone).toEqual(rest);
    }
  });

  it("mirror left for right and turn about the vertical", () => {
    const m = mirrored(POSTURE_CLIPS.peek_left!);
    expect(m).toEqual(POSTURE_CLIPS.peek_right);
    expect(m.bones.leftUpperArm).toEqual(
      POSTURE_CLIPS.peek_left!.bones.rightUpperArm!.map(([t, [x, y, z]]) => [
        t,
        [x, y === 0 ? 0 : -y, z === 0 ? 0 : -z],
      ]),
    );
    expect(mirrored(m)).toEqual(POSTURE_CLIPS.peek_left);
    const t = turned(POSTURE_CLIPS.walk!, 75);
    expect(t.bones.hips!.every(([, [, y]]) => y === 75)).toBe(true);
    expect(t).toEqual(POSTURE_CLIPS.walk_right);
    // Climbing faces the window she climbs: turned about, her back to the viewer.
    expect(POSTURE_CLIPS.climb!.bones.hips!.every(([, [, y]]) => y === 180)).toBe(true);
  });
});
