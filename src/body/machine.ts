// The body's state machine: postures, gestures and their result words, the user's drag, the perch and the
// bed cycle, over an injected clock and world (docs/body.md). It decides and times; the executor that
// hosts it animates the character's clips from its snapshot.
import {
  type BedPhase,
  type BodyActionArgs,
  type BodyActionResult,
  GESTURE_LIMIT_MS,
  type Posture,
} from "../protocol/body.ts";
import type { Clock } from "./clock.ts";
import { chooseSitTarget, DEFAULT_PERCH, type PerchSize, peekEdges, perchAfter, spotPoint } from "./perch.ts";
import { monitorAt, type Rect, type World } from "./world.ts";

export interface BodyTimings {
  walkPxPerS: number;
  climbPxPerS: number;
  /** The bed appearing before she lies down. */
  bedSetupMs: number;
  /** Her lie-down clip. */
  lieDownMs: number;
  /** The wake clip (sits up, stretches, stands). */
  wakeMs: number;
  /** The bed fading when she stands during the lie-down clip (the spec: standing within a second). */
  bedFadeMs: number;
  /** How long a gesture may run before she stops where she is and it answers timeout (every caller's limit). */
  gestureMs: number;
}
export const DEFAULT_TIMINGS: BodyTimings = {
  walkPxPerS: 300,
  climbPxPerS: 200,
  bedSetupMs: 1_500,
  lieDownMs: 4_000,
  wakeMs: 22_000,
  bedFadeMs: 800,
  gestureMs: GESTURE_LIMIT_MS,
};

/** Read at the moment they matter: the Character tab's wake timeout and the reduced-motion preference. */
export interface BodySettings {
  wakeTimeoutMs(): number;
  reducedMotion(): boolean;
}

export interface Point {
  x: number;
  y: number;
}

export interface Perch {
  windowId: string;
  app: string | null;
  title: string | null;
  /** Where she sits on the edge (the point under her). */
  x: number;
  rect: Rect;
}

export interface BodySnapshot {
  posture: Posture;
  /** The point under her feet (bottom-center of her window). */
  position: Point;
  monitor: number;
  perch: Perch | null;
  peek: "left" | "right" | null;
  bed: BedPhase | null;
  moving: boolean;
}

interface Leg {
  posture: "walking" | "climbing";
  from: Point;
  to: Point;
  ms: number;
}

interface Travel {
  legs: Leg[];
  startedAt: number;
  cancel: () => void;
}

interface Gesture {
  action: BodyActionArgs["action"];
  finish: (r: BodyActionResult) => void;
}

export interface BodyOptions {
  clock: Clock;
  settings: BodySettings;
  world: World;
  start: Point;
  timings?: Partial<BodyTimings>;
  perch?: PerchSize;
  /** Her window's size, for the move_to spots and the peek spots. */
  body?: { width: number; height: number };
}

export class BodyMachine {
  private readonly clock: Clock;
  private readonly settings: BodySettings;
  private readonly t: BodyTimings;
  private readonly perchSize: PerchSize;
  private readonly body: { width: number; height: number };
  private world: World;
  private foot: Point;
  private rest: "standing" | "sitting" | "peeking" = "standing";
  private perch: Perch | null = null;
  private peekSide: "left" | "right" | null = null;
  private dragging = false;
  private travel: Travel | null = null;
  private gesture: Gesture | null = null;
  private bed: BedPhase | null = null;
  private bedTimer: (() => void) | null = null;
  /** go_to_bed's answer while the bed is being set up (including her way down to the floor). */
  private bedPending: Gesture | null = null;

  constructor(o: BodyOptions) {
    this.clock = o.clock;
    this.settings = o.settings;
    this.t = { ...DEFAULT_TIMINGS, ...o.timings };
    this.perchSize = o.perch ?? DEFAULT_PERCH;
    this.body = o.body ?? { width: 200, height: 360 };
    this.world = o.world;
    this.foot = { ...o.start };
  }

  snapshot(): BodySnapshot {
    const position = this.position();
    let posture: Posture = this.rest;
    if (this.dragging) posture = "dragging";
    else if (this.bed && this.bed !== "setup" && this.bed !== "fading") posture = "lying";
    else if (this.travel) posture = this.currentLeg()?.posture ?? "walking";
    return {
      posture,
      position,
      monitor: monitorAt(this.world.monitors, position.x, position.y - 1),
      perch: this.perch ? { ...this.perch, rect: { ...this.perch.rect } } : null,
      peek: this.peekSide,
      bed: this.bed,
      moving: this.travel !== null,
    };
  }

  /**
   * One gesture; answers ok or the spec's word. Past the gesture limit (`gestureMs`), or when the caller's signal
   * aborts (a stopped turn, a caller that hung up), she stops where she is and it answers timeout.
   */
  act(args: BodyActionArgs, signal?: AbortSignal): Promise<BodyActionResult> {
    if (this.dragging) return Promise.resolve("interrupted");
    const limit = new AbortController();
    const cancel = this.clock.setTimer(this.t.gestureMs, () => limit.abort());
    const stop = signal ? AbortSignal.any([signal, limit.signal]) : limit.signal;
    return this.start(args, stop).finally(cancel);
  }

  private start(args: BodyActionArgs, signal: AbortSignal): Promise<BodyActionResult> {
    if (args.action === "stand") return Promise.resolve(this.stand(signal));
    if (args.action === "go_to_bed") return this.goToBed(signal);
    if (this.bed) return Promise.resolve("busy");
    if (this.gesture || this.bedPending) return Promise.resolve("busy");
    if (args.action === "sit_on_window") {
      const choice = chooseSitTarget(this.world, args.app, this.perchSize);
      if (typeof choice === "string") return Promise.resolve(choice);
      const target = { windowId: choice.window.id, x: choice.x, rect: { ...choice.window.rect } };
      return this.run("sit_on_window", { x: choice.x, y: choice.window.rect.y }, signal, () => {
        const fate = perchAfter(this.world, target, this.perchSize);
        if (fate.kind !== "stay") {
          this.getDown();
          return fate.kind === "gone" ? "not_found" : "blocked";
        }
        const w = this.world.windows.find((x) => x.id === target.windowId)!;
        this.foot = { x: fate.x, y: fate.y };
        this.perch = { windowId: w.id, app: w.app, title: w.title, x: fate.x, rect: { ...fate.rect } };
        this.rest = "sitting";
        return "ok";
      });
    }
    if (args.action === "peek") {
      const edge = peekEdges(this.world).find((e) => e.side === args.side);
      if (!edge) return Promise.resolve("not_found");
      const half = this.body.width / 2;
      const x = edge.side === "left" ? edge.x - half : edge.x + half;
      const m = this.world.monitors[monitorAt(this.world.monitors, x, edge.bottom - 1)];
      const y = m ? Math.min(edge.bottom, m.workArea.y + m.workArea.height) : edge.bottom;
      return this.run("peek", { x, y }, signal, () => {
        this.rest = "peeking";
        this.peekSide = args.side;
        return "ok";
      });
    }
    const here = this.position();
    const index = args.monitor ?? monitorAt(this.world.monitors, here.x, here.y - 1);
    const m = this.world.monitors[index];
    if (!m) return Promise.resolve("not_found");
    return this.run("move_to", spotPoint(m, args.spot, this.body), signal, () => "ok");
  }

  /** The window list changed: a perch follows its window, or ends (she gets down). */
  setWorld(world: World): void {
    this.world = world;
    if (!this.perch || this.travel) return;
    const fate = perchAfter(world, this.perch, this.perchSize);
    if (fate.kind === "stay") {
      this.perch = { ...this.perch, x: fate.x, rect: { ...fate.rect } };
      this.foot = { x: fate.x, y: fate.y };
    } else {
      this.getDown();
    }
  }

  /** The user grabbed her: a running gesture answers interrupted, the bed and any perch or peek end. */
  dragStart(): void {
    const at = this.position();
    this.stopTravel();
    this.gesture?.finish("interrupted");
    this.gesture = null;
    this.bedPending?.finish("interrupted");
    this.bedPending = null;
    this.endBed();
    this.perch = null;
    this.peekSide = null;
    this.rest = "standing";
    this.foot = at;
    this.dragging = true;
  }

  dragMove(to: Point): void {
    if (this.dragging) this.foot = { ...to };
  }

  dragEnd(at: Point): void {
    if (!this.dragging) return;
    this.foot = { ...at };
    this.dragging = false;
  }

  /** A click on her or a message from the user: interrupts the bed's setup, wakes her from sleep. */
  poke(): void {
    if (this.bedPending) {
      const at = this.position();
      this.stopTravel();
      this.bedPending.finish("interrupted");
      this.bedPending = null;
      this.gesture = null;
      this.endBed();
      this.foot = at;
      this.rest = "standing";
      return;
    }
    if (this.bed === "asleep") this.wake();
    else if (this.bed === "lying_down") this.fade();
  }

  // --- gestures ---

  private run(
    action: Gesture["action"],
    to: Point,
    signal: AbortSignal | undefined,
    arrive: () => BodyActionResult,
  ): Promise<BodyActionResult> {
    return new Promise((resolve) => {
      const g: Gesture = {
        action,
        finish: (r) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(r);
        },
      };
      const onAbort = () => {
        if (this.gesture !== g) return;
        this.foot = this.position();
        this.stopTravel();
        this.gesture = null;
        g.finish("timeout");
      };
      if (signal?.aborted) return resolve("timeout");
      signal?.addEventListener("abort", onAbort, { once: true });
      this.gesture = g;
      this.leaveRest();
      this.startTravel(to, () => {
        this.gesture = null;
        g.finish(arrive());
      });
    });
  }

  private stand(signal: AbortSignal | undefined): BodyActionResult {
    switch (this.bed) {
      case "setup":
        this.poke(); // the bed being set up goes away; go_to_bed answers interrupted
        return "ok";
      case "lying_down":
        this.fade();
        return "ok";
      case "asleep":
        this.wake();
        return "ok";
      case "waking":
      case "fading":
        return "ok";
    }
    if (this.bedPending) {
      this.poke();
      return "ok";
    }
    if (this.gesture) return "busy";
    if (signal?.aborted) return "timeout";
    if (this.rest === "sitting") this.getDown();
    this.peekSide = null;
    if (this.rest === "peeking") this.rest = "standing";
    return "ok";
  }

  private goToBed(signal: AbortSignal | undefined): Promise<BodyActionResult> {
    if (this.bed === "lying_down" || this.bed === "asleep") return Promise.resolve("ok");
    if (this.bed || this.gesture || this.bedPending) return Promise.resolve("busy");
    if (this.settings.reducedMotion()) return Promise.resolve("unsupported");
    return new Promise((resolve) => {
      const g: Gesture = {
        action: "go_to_bed",
        finish: (r) => {
          signal?.removeEventListener("abort", onAbort);
          resolve(r);
        },
      };
      const onAbort = () => {
        if (this.bedPending !== g) return;
        this.foot = this.position();
        this.stopTravel();
        this.endBed();
        this.bedPending = null;
        g.finish("timeout");
      };
      if (signal?.aborted) return resolve("timeout");
      signal?.addEventListener("abort", onAbort, { once: true });
      this.bedPending = g;
      const setUp = () => {
        this.bed = "setup";
        this.bedTimer = this.clock.setTimer(this.t.bedSetupMs, () => {
          // Her lie-down clip starts: lying from this moment, and go_to_bed answers ok.
          this.bed = "lying_down";
          this.bedPending = null;
          g.finish("ok");
          this.bedTimer = this.clock.setTimer(this.t.lieDownMs, () => {
            this.bed = "asleep";
            this.bedTimer = this.clock.setTimer(this.settings.wakeTimeoutMs(), () => this.wake());
          });
        });
      };
      const here = this.position();
      const floor = this.floorUnder(here);
      this.leaveRest();
      if (Math.abs(here.y - floor) < 1) setUp();
      else this.startTravel({ x: here.x, y: floor }, setUp);
    });
  }

  private wake(): void {
    this.clearBedTimer();
    this.bed = "waking";
    this.bedTimer = this.clock.setTimer(this.t.wakeMs, () => this.endBed());
  }

  private fade(): void {
    this.clearBedTimer();
    this.bed = "fading";
    this.bedTimer = this.clock.setTimer(this.t.bedFadeMs, () => this.endBed());
  }

  private endBed(): void {
    this.clearBedTimer();
    this.bed = null;
    this.rest = "standing";
  }

  private clearBedTimer(): void {
    this.bedTimer?.();
    this.bedTimer = null;
  }

  /** Leaves a perch or a peek as a move starts (she travels from where she is). */
  private leaveRest(): void {
    this.perch = null;
    this.peekSide = null;
    this.rest = "standing";
  }

  /** Gets down from a perch to the floor below (climbing), outside any gesture. */
  private getDown(): void {
    const here = this.position();
    this.perch = null;
    this.rest = "standing";
    const floor = this.floorUnder(here);
    if (Math.abs(here.y - floor) >= 1) this.startTravel({ x: here.x, y: floor }, () => {});
  }

  /** The work area's bottom of the monitor under a point. */
  private floorUnder(p: Point): number {
    const m = this.world.monitors[monitorAt(this.world.monitors, p.x, p.y - 1)];
    return m ? m.workArea.y + m.workArea.height : p.y;
  }

  // --- travel: down to the floor (climbing), along it (walking), up to the target (climbing) ---

  private startTravel(to: Point, done: () => void): void {
    this.stopTravel();
    const from = this.position();
    const floor = this.floorUnder(from);
    const legs: Leg[] = [];
    const add = (posture: Leg["posture"], a: Point, b: Point) => {
      const d = Math.hypot(b.x - a.x, b.y - a.y);
      if (d < 1) return;
      const speed = posture === "walking" ? this.t.walkPxPerS : this.t.climbPxPerS;
      legs.push({ posture, from: a, to: b, ms: (d / speed) * 1000 });
    };
    const down = { x: from.x, y: floor };
    const along = { x: to.x, y: floor };
    add("climbing", from, down);
    add("walking", down, along);
    add("climbing", along, to);
    const total = legs.reduce((s, l) => s + l.ms, 0);
    const travel: Travel = { legs, startedAt: this.clock.now(), cancel: () => {} };
    travel.cancel = this.clock.setTimer(total, () => {
      if (this.travel !== travel) return;
      this.travel = null;
      this.foot = { ...to };
      done();
    });
    this.travel = travel;
  }

  private stopTravel(): void {
    if (!this.travel) return;
    const at = this.position();
    this.travel.cancel();
    this.travel = null;
    this.foot = at;
  }

  private currentLeg(): (Leg & { into: number }) | null {
    if (!this.travel) return null;
    let elapsed = this.clock.now() - this.travel.startedAt;
    for (const leg of this.travel.legs) {
      if (elapsed < leg.ms) return { ...leg, into: elapsed };
      elapsed -= leg.ms;
    }
    const last = this.travel.legs[this.travel.legs.length - 1];
    return last ? { ...last, into: last.ms } : null;
  }

  private position(): Point {
    const leg = this.currentLeg();
    if (!leg) return { ...this.foot };
    const f = leg.ms > 0 ? leg.into / leg.ms : 1;
    return { x: leg.from.x + (leg.to.x - leg.from.x) * f, y: leg.from.y + (leg.to.y - leg.from.y) * f };
  }
}
