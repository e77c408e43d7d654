/**
 * Main's body on the desktop while her page holds it (docs/body.md "The avatar executor"): a BodyMachine over the
 * window model, which places her window through the shell (her head always on a work area), follows the user's
 * hand (a drop falls onto a surface), reads the screen, moves on her own now and then (the wanderer), makes room
 * for YUI's focused windows, remembers where she was, and tells her page what to play (`yui://body`).
 */

import type { ShellToHost } from "../../shell/contract.ts";
import { type Clock, realClock } from "../../src/body/clock.ts";
import { BodyMachine, type BodySnapshot } from "../../src/body/machine.ts";
import { perchTargets } from "../../src/body/perch.ts";
import { type Placement, placeWindow } from "../../src/body/placement.ts";
import { DEFAULT_TIMINGS } from "../../src/body/timings.ts";
import { createWanderer, type Wanderer } from "../../src/body/wander.ts";
import { fullyCovered, type World } from "../../src/body/world.ts";
import {
  BODY_EVENT,
  type BodyActionArgs,
  type BodyActionResult,
  type BodyEvent,
  bodySettingsKey,
  DEFAULT_BODY_SETTINGS,
  desktopSettingsKey,
  type ScreenShot,
} from "../../src/protocol/body.ts";
import { encodeScreenshot } from "../browser/screenshots.ts";
import type { AttachedBody } from "../server/body-slot.ts";
import type { WorldWatcher } from "../x11/poll.ts";
import type { DesktopBodiesOptions } from "./body.ts";
import { watchPointer } from "./gaze.ts";
import { desktopSettings, layoutKey, perchWidth, recallPlace, rememberPlace, windowSize } from "./places.ts";

/**
 * While she moves, her window is placed this often. At rest nothing runs on a timer: everything that changes
 * her (a gesture, a reading of the desktop, the user's hand, the machine's own timers) ticks at once.
 */
export const MOVE_TICK_MS = 33;
/** How long an action waits for the first reading of the desktop before it answers unsupported. */
const READY_MS = 5_000;
const CAPTURE_MS = 10_000;
/** Her place is remembered once she has been at rest this long. */
const REMEMBER_MS = 1_000;

/** A window place the shell reported. */
export type Geometry = Extract<ShellToHost, { type: "geometry" }>;

let captureSeq = 0;

/**
 * Whether other windows stacked above the character window placed at `g` cover all of it: the window model's
 * own windows (`hers`) are matched to it by place.
 */
export function coveredAt(world: World | null, g: Geometry | null): boolean {
  if (!g || !world?.hers) return false;
  const mine = world.hers.find(
    (w) => w.rect.width === g.width && w.rect.height === g.height && w.rect.x === g.x && w.rect.y === g.y,
  );
  return mine ? fullyCovered(mine.rect, mine.above) : false;
}

export class LiveBody implements AttachedBody {
  private machine: BodyMachine | null = null;
  private world: World | null = null;
  private readonly watch: WorldWatcher;
  private timer: NodeJS.Timeout | undefined;
  private sent = { x: Number.NaN, y: Number.NaN };
  private lastEvent = "";
  private lastFoot: { x: number; y: number } | null = null;
  private facing: -1 | 0 | 1 = 0;
  private disposed = false;
  private readyWaiters: (() => void)[] = [];
  private readonly clock: Clock;
  private wanderer: Wanderer | null = null;
  /** Why her moves of her own are paused ("doze": setWandering(false); "room": she stepped aside). */
  private readonly pauses = new Set<string>();
  private gaze: [number, number] | null = null;
  /** Where she came from when she stepped aside for a window of YUI's (null once anyone moved her since). */
  private aside: { from: number } | null = null;
  private remember: NodeJS.Timeout | undefined;
  private readonly offStore: () => void;

  constructor(
    readonly presetId: string,
    private readonly o: DesktopBodiesOptions,
    private readonly place: () => Geometry | null,
    /** Each reading of the desktop, and null once this body stops watching it. */
    private readonly seen: (world: World | null) => void,
  ) {
    // The machine's own timers (the bed's phases, a wake, a fall's end) are told to her page at once.
    const clock = o.clock ?? realClock;
    this.clock = {
      now: () => clock.now(),
      setTimer: (ms, fn) =>
        clock.setTimer(ms, () => {
          fn();
          this.tick();
        }),
    };
    // Her size (Settings, her menu): her window, her spots and her share of an edge follow it.
    this.offStore = o.store.onChange((c) => {
      if (c.key !== desktopSettingsKey(presetId) || !this.machine) return;
      const scale = desktopSettings(o.store, presetId).scale;
      this.machine.resize(windowSize(scale), { strip: 4, width: perchWidth(scale) });
      this.tick();
    });
    this.watch = o.watchWorld(
      (w) => {
        this.world = w;
        this.seen(w);
        this.machine?.setWorld(w);
        this.ensureMachine();
        this.tick();
      },
      () => this.movesMatter(),
    );
  }

  /** Her window's size now (her scale setting). */
  private size() {
    return windowSize(desktopSettings(this.o.store, this.presetId).scale);
  }

  /**
   * The machine exists once the desktop was read and her window's place is known. She starts where she was on this
   * monitor layout, on the surface under her (else where her window is).
   */
  private ensureMachine(): BodyMachine | null {
    if (this.machine || this.disposed) return this.machine;
    const g = this.place();
    if (!g || !this.world) return null;
    const settings = () => {
      const v = this.o.store.get(bodySettingsKey(this.presetId));
      return { ...DEFAULT_BODY_SETTINGS, ...(v && typeof v === "object" ? v : {}) };
    };
    const scale = desktopSettings(this.o.store, this.presetId).scale;
    const was = recallPlace(this.o.store, this.presetId, this.layout());
    this.machine = new BodyMachine({
      clock: this.clock,
      world: this.world,
      start: was ?? { x: g.x + g.width / 2, y: g.y + g.height },
      body: windowSize(scale),
      perch: { strip: 4, width: perchWidth(scale) },
      timings: this.o.timings,
      settings: {
        wakeTimeoutMs: () => settings().wake_timeout_s * 1000,
        reducedMotion: () => settings().reduced_motion,
      },
    });
    // Back where she was: on the surface under that place at once (the window the host opened stands on a floor).
    if (was) this.machine.settle();
    this.sent = { x: g.x, y: g.y };
    this.wanderer = this.startWanderer(this.machine);
    for (const w of this.readyWaiters.splice(0)) w();
    return this.machine;
  }

  /** Her moves of her own (src/body/wander.ts) over this machine, the X connection's idle time and pointer. */
  private startWanderer(machine: BodyMachine): Wanderer {
    const t = { ...DEFAULT_TIMINGS, ...this.o.timings };
    const wanderer = createWanderer({
      clock: this.clock,
      random: this.o.random ?? Math.random,
      timings: t,
      body: machine,
      world: () => this.world ?? { windows: [], monitors: [] },
      size: () => this.size(),
      perch: () => ({ strip: 4, width: perchWidth(desktopSettings(this.o.store, this.presetId).scale) }),
      userIdleMs: () => this.o.input?.idleMs() ?? Promise.resolve(null),
      enabled: () => desktopSettings(this.o.store, this.presetId).wander,
      watch: (ms) => {
        if (!this.o.input) return () => {};
        return watchPointer(
          this.o.input,
          () => this.windowNow(),
          ms,
          (g) => {
            this.gaze = g;
            this.tick();
          },
        );
      },
      moved: () => this.tick(),
      log: (l) => this.o.log?.(l),
    });
    wanderer.setAllowed(this.pauses.size === 0);
    return wanderer;
  }

  /** The monitor layout she is on (places.ts layoutKey over the window model's monitors). */
  private layout(): string {
    return layoutKey((this.world?.monitors ?? []).map((m) => m.rect));
  }

  /** The machine once it exists, over a reading of the desktop taken now (moves are not polled at rest). */
  private async ready(): Promise<BodyMachine | null> {
    await this.watch.refresh();
    return this.machineReady();
  }

  private machineReady(): Promise<BodyMachine | null> {
    const m = this.ensureMachine();
    if (m || this.disposed) return Promise.resolve(m);
    return new Promise((resolve) => {
      const t = setTimeout(() => resolve(this.machine), READY_MS);
      this.readyWaiters.push(() => {
        clearTimeout(t);
        resolve(this.machine);
      });
    });
  }

  /** Her window's place for a snapshot (src/body/placement.ts: her head on a work area) and its size. */
  private windowAt(s: BodySnapshot): Placement & { width: number; height: number } {
    const size = this.size();
    return { ...placeWindow(s, size, this.world ?? { monitors: [] }), ...size };
  }

  private windowNow() {
    const s = this.machine?.snapshot();
    return s ? this.windowAt(s) : { x: 0, y: 0, width: 1, height: 1, clip: 0 };
  }

  /** Places her window, tells her page what changed, and comes back soon while she moves. */
  private tick(): void {
    clearTimeout(this.timer);
    const m = this.machine;
    if (!m || this.disposed) return;
    const s = m.snapshot();
    if (this.lastFoot && s.moving) {
      const dx = s.position.x - this.lastFoot.x;
      if (Math.abs(dx) > 0.5) this.facing = dx > 0 ? 1 : -1;
      else if (Math.abs(s.position.y - this.lastFoot.y) > 0.5) this.facing = 0;
    } else if (!s.moving) this.facing = 0;
    this.lastFoot = s.position;
    const at = this.windowAt(s);
    // While the user drags her, the window manager moves the window.
    if (s.posture !== "dragging" && (at.x !== this.sent.x || at.y !== this.sent.y)) {
      this.sent = { x: at.x, y: at.y };
      this.o.shell.send({ type: "move", id: this.presetId, x: at.x, y: at.y });
    }
    this.tell(s, at.clip);
    this.rememberLater(s);
    // `watch` is unset while the watch's first reading is told synchronously (the constructor).
    if (this.movesMatter()) this.watch?.resume();
    if (s.moving) this.timer = setTimeout(() => this.tick(), MOVE_TICK_MS);
  }

  /** Tells her page her state when it changed (`yui://body`). */
  private tell(s: BodySnapshot, clip: number): void {
    const ev: BodyEvent = {
      presetId: this.presetId,
      posture: s.posture,
      peek: s.peek,
      bed: s.bed,
      moving: s.moving,
      facing: this.facing,
      occluded: coveredAt(this.world, this.place()),
      clip: Math.round(clip * 1000) / 1000,
      fall: s.fall,
      gaze: this.gaze,
    };
    const key = JSON.stringify(ev);
    if (key !== this.lastEvent) {
      this.lastEvent = key;
      this.o.broadcast(BODY_EVENT, ev);
    }
  }

  /** Once she has been at rest a second, where she is is remembered for this monitor layout. */
  private rememberLater(s: BodySnapshot): void {
    clearTimeout(this.remember);
    if (s.moving || s.posture === "dragging" || s.bed || !this.world) return;
    const layout = this.layout();
    const at = s.position;
    this.remember = setTimeout(() => rememberPlace(this.o.store, this.presetId, layout, at), REMEMBER_MS);
  }

  /**
   * Other windows' moves matter while she sits on one or is on her way (a polled watch polls then); otherwise
   * a fresh reading before each gesture or look is enough. X11's watch follows every move by its events.
   */
  private movesMatter(): boolean {
    const s = this.machine?.snapshot();
    return !s || s.perch !== null || s.moving || s.posture === "dragging";
  }

  fromShell(m: ShellToHost): void {
    // Her window's place and the user's hand; not the silhouette's `shape` updates, which come many times a second.
    if (m.type !== "mapped" && m.type !== "geometry" && m.type !== "drag" && m.type !== "drag-end") return;
    const machine = this.ensureMachine();
    if (!machine) return;
    if (m.type === "drag") {
      machine.dragStart();
      this.wanderer?.activity();
    } else if (m.type === "geometry" && machine.snapshot().posture === "dragging") {
      machine.dragMove({ x: m.x + m.width / 2, y: m.y + m.height });
    } else if (m.type === "drag-end") {
      // Where the window manager left her window; from there she falls onto the surface below.
      machine.dragEnd({ x: m.x + m.width / 2, y: m.y + m.height });
      this.sent = { x: m.x, y: m.y };
      this.aside = null;
    }
    this.tick();
  }

  placedByHost(x: number, y: number): void {
    const machine = this.machine;
    const size = this.size();
    if (!machine) return;
    // The host's own move (reset position) counts as the user's hand: a running gesture is interrupted.
    machine.dragStart();
    machine.dragEnd({ x: x + size.width / 2, y: y + size.height });
    this.sent = { x, y };
    this.aside = null;
    this.wanderer?.activity();
    this.tick();
  }

  /**
   * Makes room for a focused window of YUI's (room.ts): a walk of her own so that her window's left edge goes to
   * `x`, when she stands free on a floor; `null` walks her back when she is still where she stepped to.
   */
  stepAside(x: number | null): boolean {
    const m = this.machine;
    if (!m) return false;
    if (x === null) {
      // Moved by anyone meanwhile (a gesture, the user's hand), she stays where she is now.
      const back = this.aside;
      this.aside = null;
      if (back && m.free()) m.ownMove({ kind: "walk", x: back.from });
      this.pause("room", false);
      this.tick();
      return true;
    }
    const s = m.snapshot();
    if (!m.free() || s.perch || s.posture !== "standing") return false;
    this.pause("room", true);
    const to = x + this.size().width / 2;
    if (!m.ownMove({ kind: "walk", x: to })) {
      this.pause("room", false);
      return false;
    }
    // Stepping further aside (the window moved or grew): she still comes back to where she first was.
    this.aside = { from: this.aside?.from ?? s.position.x };
    this.tick();
    return true;
  }

  /** Pauses or resumes her moves of her own for `why` (the doze: setWandering; her stepping aside: "room"). */
  pause(why: string, on: boolean): void {
    if (on) this.pauses.add(why);
    else this.pauses.delete(why);
    this.wanderer?.setAllowed(this.pauses.size === 0);
    this.tick();
  }

  async bodyAction(args: BodyActionArgs, signal: AbortSignal): Promise<BodyActionResult> {
    const m = await this.ready();
    if (!m) return "unsupported";
    this.wanderer?.activity();
    this.aside = null;
    const result = m.act(args, signal);
    this.tick();
    const r = await result;
    this.tick();
    return r;
  }

  async bodyState(): Promise<unknown> {
    const m = await this.ready();
    if (!m) throw new Error("unsupported");
    const s = m.snapshot();
    const { x, y, width, height } = this.windowAt(s);
    return {
      window: { x, y, width, height },
      monitor: s.monitor,
      posture: s.posture,
      perch: s.perch ? { app: s.perch.app, title: s.perch.title, rect: s.perch.rect } : null,
      peek: s.peek,
      bed: s.bed,
      moving: s.moving,
      vrm: this.o.vrm(this.presetId),
    };
  }

  async perchTargets(): Promise<unknown> {
    await this.ready();
    if (!this.world) throw new Error("unsupported");
    const scale = desktopSettings(this.o.store, this.presetId).scale;
    return perchTargets(this.world, { strip: 4, width: perchWidth(scale) });
  }

  async screenshot(monitor: number | undefined): Promise<ScreenShot | null> {
    const m = await this.ready();
    if (!m || !this.world) throw new Error("unsupported");
    const display = monitor ?? m.snapshot().monitor;
    const mon = this.world.monitors[display];
    if (!mon) return null;
    const png = await this.capture(mon.rect);
    return { display, dataUrl: await encodeScreenshot(png) };
  }

  private async capture(r: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
    const req = ++captureSeq;
    const answer = this.o.shell.next(
      (x): x is Extract<ShellToHost, { type: "capture" }> => x.type === "capture" && x.req === req,
      CAPTURE_MS,
    );
    this.o.shell.send({ type: "capture", req, ...r });
    const a = await answer;
    if (!a.png) throw new Error(`screen capture failed: ${a.error ?? "no image"}`);
    return Buffer.from(a.png, "base64");
  }

  poke(): void {
    this.machine?.poke();
    this.wanderer?.activity();
    this.tick();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    clearTimeout(this.remember);
    this.wanderer?.dispose();
    this.offStore();
    this.watch.stop();
    this.seen(null);
    for (const w of this.readyWaiters.splice(0)) w();
  }
}
