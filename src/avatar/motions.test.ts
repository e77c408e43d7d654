import { describe, expect, it } from "vitest";
import { DEFAULT_VOCABULARY } from "../app/vocabulary/vocabulary.ts";
import { DEFAULT_EXPRESSIONS } from "./default-expressions.ts";
import { AMBIENT_MOTIONS, BASE_POSE, DEFAULT_MOTIONS, keysWithRest, PROCEDURAL_CLIPS } from "./motions.ts";

/** Motion ids of the shipped vocabulary (issue 3): offered, reactive and ambient. */
const VOCABULARY_MOTIONS = [
  "wave",
  "nod",
  "shake_head",
  "bow",
  "tilt_head",
  "cheer",
  "think",
  "shrug",
  "surprised_jump",
  "poke_reaction",
  "idle_stretch",
  "idle_look_around",
];

const HUMAN_BONES = new Set([
  "hips",
  "spine",
  "chest",
  "upperChest",
  "neck",
  "head",
  ...["Shoulder", "UpperArm", "LowerArm", "Hand", "UpperLeg", "LowerLeg", "Foot", "Toes"].flatMap((b) => [
    `left${b}`,
    `right${b}`,
  ]),
]);

describe("procedural motion clips", () => {
  it("cover every motion id of the vocabulary, each mapped to a defined clip", () => {
    expect(Object.keys(DEFAULT_MOTIONS).sort()).toEqual([...VOCABULARY_MOTIONS].sort());
    for (const id of VOCABULARY_MOTIONS) expect(PROCEDURAL_CLIPS[DEFAULT_MOTIONS[id]!], id).toBeDefined();
    for (const id of AMBIENT_MOTIONS) expect(DEFAULT_MOTIONS[id]).toBeDefined();
  });

  it("key only humanoid bones, inside the clip's duration, in time order", () => {
    for (const [id, clip] of Object.entries(PROCEDURAL_CLIPS)) {
      for (const [bone, keys] of Object.entries(clip.bones)) {
        expect(HUMAN_BONES.has(bone), `${id}.${bone}`).toBe(true);
        const times = keys!.map(([t]) => t);
        expect(times).toEqual([...times].sort((a, b) => a - b));
        expect(Math.max(...times)).toBeLessThan(clip.duration);
        expect(Math.min(...times)).toBeGreaterThan(0);
      }
    }
  });

  it("start from and return to the base pose", () => {
    const keys = keysWithRest(PROCEDURAL_CLIPS.wave!.bones.rightUpperArm, BASE_POSE.rightUpperArm!, 2.2);
    expect(keys[0]).toEqual([0, BASE_POSE.rightUpperArm]);
    expect(keys.at(-1)).toEqual([2.2, BASE_POSE.rightUpperArm]);
    expect(keysWithRest(undefined, [1, 2, 3], 1)).toEqual([
      [0, [1, 2, 3]],
      [1, [1, 2, 3]],
    ]);
  });
});

describe("the shipped vocabulary", () => {
  it("names only clips the stage defines, and carries the stage's default expressions", () => {
    for (const m of DEFAULT_VOCABULARY.motions) expect(PROCEDURAL_CLIPS[m.clip ?? ""], m.id).toBeDefined();
    expect(Object.fromEntries(DEFAULT_VOCABULARY.emotions.map((e) => [e.id, e.expression]))).toEqual(
      DEFAULT_EXPRESSIONS,
    );
  });
});
