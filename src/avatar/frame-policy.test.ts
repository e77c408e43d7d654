import { describe, expect, it } from "vitest";
import { type FrameNeed, frameInterval, IDLE_INTERVAL_MS, SETTLE_SECONDS } from "./frame-policy.ts";

const idle: FrameNeed = {
  hidden: false,
  motion: false,
  expression: false,
  blink: false,
  speaking: false,
  dragged: false,
  sinceMoved: 60,
};

describe("frame policy", () => {
  it.each<[string, Partial<FrameNeed>, number | null]>([
    ["idle life only", {}, IDLE_INTERVAL_MS],
    ["a motion plays", { motion: true }, 0],
    ["an expression blends", { expression: true }, 0],
    ["a blink is under way", { blink: true }, 0],
    ["she speaks", { speaking: true }, 0],
    ["she is dragged", { dragged: true }, 0],
    ["just after a motion, springs settling", { sinceMoved: SETTLE_SECONDS - 0.1 }, 0],
    ["settled after a motion", { sinceMoved: SETTLE_SECONDS }, IDLE_INTERVAL_MS],
    ["hidden while idle", { hidden: true }, null],
    ["hidden while speaking and moving", { hidden: true, speaking: true, motion: true, sinceMoved: 0 }, null],
  ])("%s", (_name, change, expected) => {
    expect(frameInterval({ ...idle, ...change })).toBe(expected);
  });

  it("draws idle life at 10 fps", () => {
    expect(IDLE_INTERVAL_MS).toBe(100);
  });
});
