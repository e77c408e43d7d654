// The body's state machine: postures, gestures and their result words, the user's drag, the perch, gravity, her
// own moves and the bed cycle, over an injected clock and world (docs/body.md). It decides and times; the executor
// that hosts it animates the character's clips from its snapshot.
import type { BedPhase, BodyActionArgs, BodyActionResult, Posture } from "../protocol/body.ts";
import type { Clock } from "./clock.ts";
import { chooseSitTarget, DEFAULT_PERCH, type PerchSize, peekEdges, perchAfter, spotPoint } from "./perch.ts";
import { keepOnScreen, type Size } from "./placement.ts";
import { floorUnder, type Surface, surfaceBelow } from "./surface.ts";
import { type BodyTimings, DEFAULT_TIMINGS } from "./timings.ts";
import { fall, type Leg, legAt, type Point, route, sideOf } from "./travel.ts";
import { monitorAt, type Rect, type World } from "./world.ts";

export { type BodyTimings, DEFAULT_TIMINGS } from "./timings.ts";
export type { Point } from "./travel.ts";

/** Read at the moment they matter: the Character tab's wake timeout and the reduced-motion preference. */
export interface BodySettings {
  wakeTimeoutMs(): number;
  reducedMotion(): boolean;
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
  /** Falling after the user let go of her in mid-air (or after a peek), then landing; posture reads standing. */
  fall: "falling" | "landing" | null;
}

/**
 * A move of her own (docs/body.md "A little life of her own"), never a gesture: a few steps along the surface she
 * is on, or sitting on a window's top edge at `x`. Anything else that moves her stops it at once.
 */
export type OwnMove = { kind: "walk"; x: number } | { kind: "sit"; windowId: string; x: number };

interface Travel {
  legs: Leg[];
  startedAt: number;
  cancel: () => void;
  /** Her own move: any gesture, the user's hand or stopOwn() stops it where she is. */
  own: boolean;
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
  /** Her window's size, for the move_to spots, the peek spots and keeping her head on screen. */
  body?: Size;
}

export class BodyMachine {
  private readonly clock: Clock;
  private readonly settings: BodySettings;
  private readonly t: BodyTimings;
  private perchSize: PerchSize;
  private body: Size;
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
    const leg = this.currentLeg();
    let posture: Posture = this.rest;
    if (this.dragging) posture = "dragging";
    else if (this.bed && this.bed !== "setup" && this.bed !== "fading") posture = "lying";
    else if (leg && (leg.kind === "walking" || leg.kind === "climbing")) posture = leg.kind;
    else if (leg) posture = "standing";
    return {
      posture,
      position,
      monitor: monitorAt(this.world.monitors, position.x, position.y - 1),
      perch: this.perch ? { ...this.perch, rect: { ...this.perch.rect } } : null,
      peek: this.peekSide,
      bed: this.bed,
      moving: this.travel !== null,
      fall: leg && (leg.kind === "falling" || leg.kind === "landing") ? leg.kind : null,
    };
  }

  /**
   * One gesture; answers ok or the spec's word. A move of her own gives way at once (never busy because of it).
   * Past the gesture limit (`gestureMs`), or when the caller's signal aborts (a stopped turn, a caller that hung
   * up), she stops where she is and it answers timeout.
   */
  act(args: BodyActionArgs, signal?: AbortSignal): Promise<BodyActionResult> {
    if (this.dragging) return Promise.resolve("interrupted");
    this.stopOwn();
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
      const to = { x: choice.x, y: choice.window.rect.y };
      return this.run("sit_on_window", to, target.rect, signal, () => this.sitOn(target));
    }
    if (args.action === "peek") {
      const edge = peekEdges(this.world).find((e) => e.side === args.side);
      if (!edge) return Promise.resolve("not_found");
      const half = this.body.width / 2;
      const x = edge.side === "left" ? edge.x - half : edge.x + half;
      const floor = floorUnder(this.world, { x, y: edge.bottom });
      // Her head stays on the work area: at its side she leans out from a little in front of the window.
      const to = keepOnScreen({ x, y: Math.min(edge.bottom, floor) }, this.body, this.world);
      return this.run("peek", to, null, signal, () => {
        this.rest = "peeking";
        this.peekSide = args.side;
        return "ok";
      });
    }
    const here = this.position();
    const index = args.monitor ?? monitorAt(this.world.monitors, here.x, here.y - 1);
    const m = this.world.monitors[index];
    if (!m) return Promise.resolve("not_found");
    return this.run("move_to", spotPoint(m, args.spot, this.body), null, signal, () => "ok");
  }

  /** The window list changed: a perch follows its window, or ends (she gets down); a standing body stays on screen. */
  setWorld(world: World): void {
    const monitorsChanged = JSON.stringify(world.monitors) !== JSON.stringify(this.world.monitors);
    this.world = world;
    if (this.travel || this.dragging) return;
    if (this.perch) {
      const fate = perchAfter(world, this.perch, this.perchSize);
      if (fate.kind === "stay") {
        this.perch = { ...this.perch, x: fate.x, rect: { ...fate.rect } };
        this.foot = { x: fate.x, y: fate.y };
      } else {
        this.getDown(false);
      }
      return;
    }
    if (this.bed || this.bedPending || !monitorsChanged) return;
    // The monitors changed under her: her head back onto a work area, and she ends on a surface there.
    this.foot = keepOnScreen(this.foot, this.body, world);
    if (this.rest === "standing") this.fallToSurface();
  }

  /** Her window's size changed (her scale): the spots, her head and her share of an edge follow it. */
  resize(body: Size, perch: PerchSize): void {
    this.body = { ...body };
    this.perchSize = { ...perch };
  }

  /** Puts her at once on the surface under her (a remembered place after a restart): no fall, no travel. */
  settle(): void {
    if (!this.free()) return;
    const kept = keepOnScreen(this.foot, this.body, this.world);
    const s = surfaceBelow(this.world, kept, this.perchSize);
    this.foot = { x: s.x, y: s.y };
    this.landOn(s);
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

  /** The user let go of her at `at`: kept on screen, she falls onto the surface below (a window's edge: she sits). */
  dragEnd(at: Point): void {
    if (!this.dragging) return;
    this.foot = keepOnScreen(at, this.body, this.world);
    this.dragging = false;
    this.fallToSurface();
  }

  /** A click on her or a message from the user: stops her own move, interrupts the bed's setup, wakes her. */
  poke(): void {
    this.stopOwn();
    if (this.bedPending) {
      const at = this.position();
      this.stopTravel();
      this.bedPending.finish("interrupted");
      this.bedPending = null;
      this.gesture = null;
      this.endBed();
      this.foot = at;
      this.rest = "standing";
      // Stopped on her way down: she ends on a surface.
      this.fallToSurface();
      return;
    }
    if (this.bed === "asleep") this.wake();
    else if (this.bed === "lying_down") this.fade();
  }

  // --- her own moves ---

  /** Whether she is free for a move of her own: no gesture, no bed, not held, not on her way. */
  free(): boolean {
    return !this.dragging && !this.travel && !this.gesture && !this.bedPending && !this.bed;
  }

  /**
   * Starts a move of her own (wandering, making room for a window); false when she is not free or it cannot be
   * done from where she is. A walk goes along the floor she stands on, or along the edge she sits on (she sits
   * again there); a sit goes up a side of that window onto its top edge.
   */
  ownMove(m: OwnMove): boolean {
    if (!this.free()) return false;
    const here = this.position();
    if (m.kind === "sit") {
      const w = this.world.windows.find((x) => x.id === m.windowId);
      if (!w) return false;
      const target = { windowId: w.id, x: m.x, rect: { ...w.rect } };
      const from = this.perch?.rect ?? null;
      this.leaveRest();
      this.startTravel({ x: m.x, y: w.rect.y }, { from, to: w.rect }, true, () => void this.sitOn(target));
      return true;
    }
    if (this.perch) {
      const p = this.perch;
      const half = this.perchSize.width / 2;
      const x = Math.min(Math.max(m.x, p.rect.x + half), p.rect.x + p.rect.width - half);
      const target = { windowId: p.windowId, x, rect: { ...p.rect } };
      this.leaveRest();
      this.startTravel({ x, y: p.rect.y }, { from: p.rect, to: p.rect }, true, () => void this.sitOn(target));
      return true;
    }
    if (this.rest !== "standing" || Math.abs(here.y - floorUnder(this.world, here)) >= 1) return false;
    const to = keepOnScreen({ x: m.x, y: here.y }, this.body, this.world);
    this.startTravel({ x: to.x, y: here.y }, {}, true, () => {});
    return true;
  }

  /** Stops a move of her own where she is; she then ends on a surface (falling when she was on her way up). */
  stopOwn(): void {
    if (!this.travel?.own) return;
    this.stopTravel();
    this.fallToSurface();
  }

  // --- gestures ---

  private run(
    action: Gesture["action"],
    to: Point,
    toEdge: Rect | null,
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
      const from = this.perch?.rect ?? null;
      this.leaveRest();
      this.startTravel(to, { from, to: toEdge }, false, () => {
        this.gesture = null;
        g.finish(arrive());
      });
    });
  }

  /** She arrived on a window's top edge: she sits there, or gets down when it went away or got covered. */
  private sitOn(target: { windowId: string; x: number; rect: Rect }): BodyActionResult {
    const fate = perchAfter(this.world, target, this.perchSize);
    if (fate.kind !== "stay") {
      this.getDown(false);
      return fate.kind === "gone" ? "not_found" : "blocked";
    }
    const w = this.world.windows.find((x) => x.id === target.windowId)!;
    this.foot = { x: fate.x, y: fate.y };
    this.perch = { windowId: w.id, app: w.app, title: w.title, x: fate.x, rect: { ...fate.rect } };
    this.rest = "sitting";
    return "ok";
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
    if (this.rest === "sitting") {
      this.getDown(true);
      return "ok";
    }
    this.peekSide = null;
    this.rest = "standing";
    // She ends on a surface: from a peek (her feet at a window's bottom) or a spot in mid-air she drops down.
    if (!this.travel) this.fallToSurface();
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
      const from = this.perch?.rect ?? null;
      const down = this.downFrom(here, from);
      this.leaveRest();
      if (Math.abs(here.y - down.y) < 1 && Math.abs(here.x - down.x) < 1) setUp();
      else this.startTravel(down, { from }, false, setUp);
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

  /**
   * Gets down from a perch to the floor below (climbing), outside any gesture: along the window's top to its
   * nearer side and down that side (`bySide`: she leaves it standing), or straight down (the window went away or
   * covered her seat).
   */
  private getDown(bySide: boolean): void {
    const here = this.position();
    const from = bySide ? (this.perch?.rect ?? null) : null;
    this.perch = null;
    this.rest = "standing";
    const down = this.downFrom(here, from);
    if (Math.abs(here.y - down.y) >= 1 || Math.abs(here.x - down.x) >= 1)
      this.startTravel(down, { from }, false, () => {});
  }

  /** Where she gets to on the floor from `here`: under the nearer side of the edge she is on, else straight below. */
  private downFrom(here: Point, edge: Rect | null): Point {
    const floor = floorUnder(this.world, here);
    if (!edge || Math.abs(here.y - edge.y) >= 1) return { x: here.x, y: floor };
    const side = sideOf(this.world, edge, here.x, here.x, this.body);
    return { x: side ?? here.x, y: floor };
  }

  /** She is not on a surface: she falls onto the one below (at once when it is where she is, or above her feet). */
  private fallToSurface(): void {
    const here = this.position();
    const s = surfaceBelow(this.world, here, this.perchSize);
    if (s.y - here.y < 1) {
      this.foot = { x: s.x, y: s.y };
      this.landOn(s);
      return;
    }
    this.startLegs(fall(here, { x: s.x, y: s.y }, this.t), false, () => {
      // The window she fell toward may have moved meanwhile: she lands on what is under her now.
      const now = surfaceBelow(this.world, this.foot, this.perchSize);
      if (Math.abs(now.y - this.foot.y) < 1) this.landOn(now);
      else this.fallToSurface();
    });
  }

  /** She is on a surface: on a window's top edge she sits. */
  private landOn(s: Surface): void {
    if (!s.window) return;
    void this.sitOn({ windowId: s.window.id, x: s.x, rect: { ...s.window.rect } });
  }

  // --- travel ---

  /** Travels to `to` along her way (route()): off the edge `from`, onto the edge `to`. */
  private startTravel(
    to: Point,
    edges: { from?: Rect | null; to?: Rect | null },
    own: boolean,
    done: () => void,
  ): void {
    this.stopTravel();
    const from = this.position();
    const legs = route(this.world, this.t, this.body, { from, to, fromEdge: edges.from, toEdge: edges.to });
    this.startLegs(legs, own, () => {
      this.foot = { ...to };
      done();
    });
  }

  private startLegs(legs: Leg[], own: boolean, done: () => void): void {
    this.stopTravel();
    const total = legs.reduce((s, l) => s + l.ms, 0);
    const travel: Travel = { legs, startedAt: this.clock.now(), cancel: () => {}, own };
    travel.cancel = this.clock.setTimer(total, () => {
      if (this.travel !== travel) return;
      this.travel = null;
      const last = legs[legs.length - 1];
      if (last) this.foot = { ...last.to };
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

  private currentLeg(): Leg | null {
    if (!this.travel) return null;
    return legAt(this.travel.legs, this.clock.now() - this.travel.startedAt)?.leg ?? null;
  }

  private position(): Point {
    if (!this.travel) return { ...this.foot };
    return legAt(this.travel.legs, this.clock.now() - this.travel.startedAt)?.at ?? { ...this.foot };
  }
}
