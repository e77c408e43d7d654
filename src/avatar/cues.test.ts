import { describe, expect, it } from "vitest";
import { type Cue, createCueScheduler } from "./cues.ts";

describe("cue scheduler", () => {
  const record = () => {
    const played: Array<[Cue, number]> = [];
    return { played, scheduler: createCueScheduler((cue, at) => played.push([cue, at])) };
  };

  it("plays a cue only once the reveal reaches its offset", () => {
    const { played, scheduler } = record();
    scheduler.add(10, { emotion_id: "happy" });
    scheduler.reveal(9);
    expect(played).toEqual([]);
    scheduler.reveal(10);
    expect(played).toEqual([[{ emotion_id: "happy" }, 10]]);
    scheduler.reveal(40);
    expect(played).toHaveLength(1);
  });

  it("plays cues in offset order, keeping arrival order at the same offset", () => {
    const { played, scheduler } = record();
    scheduler.add(20, { motion_id: "nod" });
    scheduler.add(5, { emotion_id: "sad" });
    scheduler.add(5, { motion_id: "bow" });
    scheduler.reveal(30);
    expect(played.map(([c]) => c.emotion_id ?? c.motion_id)).toEqual(["sad", "bow", "nod"]);
  });

  it("plays a cue that arrives behind the reveal at the next reveal", () => {
    const { played, scheduler } = record();
    scheduler.reveal(50);
    scheduler.add(12, { emotion_id: "shy" });
    expect(played).toEqual([]);
    scheduler.reveal(51);
    expect(played).toEqual([[{ emotion_id: "shy" }, 51]]);
  });

  it("treats a bad offset as the start of the text and never moves the reveal backwards", () => {
    const { played, scheduler } = record();
    scheduler.add(Number.NaN, { caption: "softly" });
    scheduler.add(-3, { emotion_text: "warm" });
    scheduler.reveal(0);
    expect(played).toHaveLength(2);
    scheduler.reveal(30);
    scheduler.add(25, { motion_id: "wave" });
    scheduler.reveal(10);
    expect(played.at(-1)?.[1]).toBe(30);
  });

  it("drops pending cues on reset", () => {
    const { played, scheduler } = record();
    scheduler.add(100, { motion_id: "cheer" });
    expect(scheduler.pending()).toHaveLength(1);
    scheduler.reset();
    scheduler.reveal(200);
    expect(played).toEqual([]);
  });
});
