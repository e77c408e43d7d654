import { VRMExpression, VRMExpressionManager } from "@pixiv/three-vrm";
import { describe, expect, it } from "vitest";
import { DEFAULT_EXPRESSIONS } from "./default-expressions.ts";
import { ExpressionPlayer } from "./expression-player.ts";

// Runs against three-vrm's real expression manager (it needs no WebGL).
function manager(names: string[]): VRMExpressionManager {
  const m = new VRMExpressionManager();
  for (const n of names) m.registerExpression(new VRMExpression(n));
  return m;
}

describe("expression player", () => {
  it("blends an emotion in over blendIn and out over blendOut", () => {
    const m = manager(["happy", "sad", "blink"]);
    const p = new ExpressionPlayer(m, { blendIn: 0.2, blendOut: 0.4 });
    p.setEmotion({ happy: 1 });
    p.update(0.1);
    expect(m.getValue("happy")).toBeCloseTo(0.5);
    p.update(0.1);
    expect(m.getValue("happy")).toBeCloseTo(1);
    p.setEmotion({ sad: 0.8 });
    p.update(0.2);
    expect(m.getValue("happy")).toBeCloseTo(0.5);
    expect(m.getValue("sad")).toBeCloseTo(0.8);
    p.update(0.2);
    expect(m.getValue("happy")).toBeCloseTo(0);
  });

  it("drops expression names the model lacks and clamps weights", () => {
    const m = manager(["happy"]);
    const p = new ExpressionPlayer(m, { blendIn: 0, blendOut: 0 });
    expect(p.setEmotion(DEFAULT_EXPRESSIONS.shy)).toEqual(["happy"]);
    p.update(0.016);
    expect(m.getValue("happy")).toBeCloseTo(0.35);
    p.setEmotion({ happy: 7 });
    p.update(0.016);
    expect(m.getValue("happy")).toBe(1);
  });

  it("adds manual channels (blink, lip sync) on top of the emotion layer", () => {
    const m = manager(["blink", "aa", "happy"]);
    const p = new ExpressionPlayer(m, { blendIn: 0, blendOut: 0 });
    p.setChannel("blink", 1);
    p.setChannel("aa", 0.6);
    p.setChannel("nonexistent", 1);
    p.update(0.016);
    expect(m.getValue("blink")).toBe(1);
    expect(m.getValue("aa")).toBeCloseTo(0.6);
    p.setChannel("blink", 0);
    p.update(0.016);
    expect(m.getValue("blink")).toBe(0);
  });

  it("returns to the neutral face when the emotion is neutral", () => {
    const m = manager(["angry"]);
    const p = new ExpressionPlayer(m, { blendIn: 0, blendOut: 0.1 });
    p.setEmotion({ angry: 1 });
    p.update(0.016);
    p.setEmotion(DEFAULT_EXPRESSIONS.neutral);
    p.update(0.2);
    expect(m.getValue("angry")).toBe(0);
    expect(p.emotionWeights()).toEqual({});
  });
});
