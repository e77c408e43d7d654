import { describe, expect, it } from "vitest";
import {
  type FrameNeed,
  frameInterval,
  IDLE_INTERVAL_MS,
  LIFE_INTERVAL_MS,
  SETTLE_SECONDS,
} from "./frame-policy.ts";

const idle: FrameNeed = {
  hidden: false,
  dozing: false,
  motion: false,
  ambient: false,
  expression: false,
  blink: false,
  speaking: false,
  dragged: false,
  sinceMoved: 60,
  sinceAmbient: 60,
};

describe("frame policy", () => {
  it.each<[string, Partial<FrameNeed>, number | null]>([
    ["idle life only", {}, IDLE_INTERVAL_MS],
    ["a motion plays", { motion: true }, 0],
    ["an expression blends", { expression: true }, 0],
    ["a blink is under way", { blink: true }, LIFE_INTERVAL_MS],
    ["an ambient motion plays", { ambient: true }, LIFE_INTERVAL_MS],
    [
      "just after an ambient motion, springs settling",
      { sinceAmbient: SETTLE_SECONDS - 0.1 },
      LIFE_INTERVAL_MS,
    ],
    ["settled after an ambient motion", { sinceAmbient: SETTLE_SECONDS }, IDLE_INTERVAL_MS],
    ["a gesture plays during a blink", { motion: true, blink: true }, 0],
    ["she speaks", { speaking: true }, 0],
    ["she is dragged", { dragged: true }, 0],
    ["just after a motion, springs settling", { sinceMoved: SETTLE_SECONDS - 0.1 }, 0],
    ["settled after a motion", { sinceMoved: SETTLE_SECONDS }, IDLE_INTERVAL_MS],
    ["hidden while idle", { hidden: true }, null],
    ["dozing, settled", { dozing: true }, null],
    ["dozing, a blink and an expression left over", { dozing: true, blink: true, expression: true }, null],
    ["dozing, her hair still settling", { dozing: true, sinceMoved: SETTLE_SECONDS - 0.1 }, 0],
    ["hidden while speaking and moving", { hidden: true, speaking: true, motion: true, sinceMoved: 0 }, null],
  ])("%s", (_name, change, expected) => {
    expect(frameInterval({ ...idle, ...change })).toBe(expected);
  });

  it("draws breathing at 10 fps, and ambient motions and blinks at 20", () => {
    expect(IDLE_INTERVAL_MS).toBe(100);
    expect(LIFE_INTERVAL_MS).toBe(50);
  });
});
