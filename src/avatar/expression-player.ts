import type { ExpressionWeights } from "./default-expressions.ts";

// Blends an emotion's expression weights in and out over time, on top of manual channels
// (blink, lip sync) that others set directly. Override rules (blink suppressed by an emotion) are
// applied by three-vrm's expression manager from the model's own overrideBlink/Mouth settings.

/** The part of three-vrm's VRMExpressionManager the player needs. */
export interface ExpressionTarget {
  getExpression(name: string): unknown;
  setValue(name: string, weight: number): void;
}

/** Blend durations in seconds. */
export interface BlendTimes {
  blendIn: number;
  blendOut: number;
}

/** Drives one model's expressions: an emotion layer with blending plus manual channels. */
export class ExpressionPlayer {
  private current = new Map<string, number>();
  private target = new Map<string, number>();
  private manual = new Map<string, number>();

  constructor(
    private readonly model: ExpressionTarget,
    private readonly times: BlendTimes,
  ) {}

  /** Sets the emotion layer's target weights; names the model lacks are dropped. Returns the kept names. */
  setEmotion(weights: ExpressionWeights): string[] {
    this.target.clear();
    for (const [name, w] of Object.entries(weights)) {
      if (this.model.getExpression(name) && Number.isFinite(w)) this.target.set(name, clamp01(w));
    }
    for (const name of this.target.keys()) if (!this.current.has(name)) this.current.set(name, 0);
    return [...this.target.keys()];
  }

  /** Sets a manual channel (blink, mouth shapes) that adds to the emotion layer without blending. */
  setChannel(name: string, weight: number): void {
    if (!this.model.getExpression(name)) return;
    this.manual.set(name, clamp01(weight));
  }

  /** Advances blending by `dt` seconds and writes every weight to the model. */
  update(dt: number): void {
    for (const [name, value] of this.current) {
      const goal = this.target.get(name) ?? 0;
      const time = goal > value ? this.times.blendIn : this.times.blendOut;
      const step = time <= 0 ? 1 : dt / time;
      const next = goal > value ? Math.min(goal, value + step) : Math.max(goal, value - step);
      if (next === 0 && goal === 0) this.current.delete(name);
      else this.current.set(name, next);
      this.model.setValue(name, clamp01(next + (this.manual.get(name) ?? 0)));
      if (next === 0 && goal === 0 && !this.manual.has(name)) this.model.setValue(name, 0);
    }
    for (const [name, value] of this.manual) {
      if (!this.current.has(name)) this.model.setValue(name, value);
    }
  }

  /** The emotion layer's current weights (for inspection). */
  emotionWeights(): Record<string, number> {
    return Object.fromEntries(this.current);
  }
}

const clamp01 = (v: number) => Math.min(1, Math.max(0, v));
