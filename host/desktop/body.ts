/**
 * Her body on the desktop (docs/body.md "The avatar executor"): for main's window, a BodyMachine over the
 * window model (host/x11/ on X11), which moves her window through the shell, follows the user's drag, reads
 * the screen for look at: screen, and tells her page what to play (`yui://body`). The host's body slot
 * (host/server/body-slot.ts) attaches one while main's desktop page holds it.
 */

import type { ShellToHost } from "../../shell/contract.ts";
import { openPetIds } from "../../src/app/presets/presets.ts";
import { type Clock, realClock } from "../../src/body/clock.ts";
import { BodyMachine, type BodySnapshot, type BodyTimings } from "../../src/body/machine.ts";
import { perchTargets } from "../../src/body/perch.ts";
import { fullyCovered, type Rect, type World } from "../../src/body/world.ts";
import {
  BODY_EVENT,
  type BodyActionArgs,
  type BodyActionResult,
  type BodyEvent,
  bodySettingsKey,
  DEFAULT_BODY_SETTINGS,
  OCCLUSION_EVENT,
  type OcclusionEvent,
  type ScreenShot,
} from "../../src/protocol/body.ts";
import { encodeScreenshot } from "../browser/screenshots.ts";
import type { AttachedBody, BodyProvider } from "../server/body-slot.ts";
import type { Store } from "../store/store.ts";
import type { WorldWatcher } from "../x11/poll.ts";
import type { ShellProcess } from "./shell-process.ts";

/**
 * Where the windows of other applications come from: starts a watch that tells each change and reads at once on
 * refresh(). On X11 events keep it current; a polled one (macOS) polls only while `pollWhile` says moves matter
 * (she sits on a window, she is on her way).
 */
export type WorldWatch = (onChange: (world: World) => void, pollWhile: () => boolean) => WorldWatcher;

/**
 * While she moves, her window is placed this often. At rest nothing runs on a timer: everything that changes
 * her (a gesture, a reading of the desktop, the user's hand, the machine's own timers) ticks at once.
 */
export const MOVE_TICK_MS = 33;
/**
 * How far her window sits below the edge she sits on, as a part of its height: the point under her is her
 * seat, not her feet, so her legs hang over the edge.
 */
export const SIT_DROP = 0.3;
/** How long an action waits for the first reading of the desktop before it answers unsupported. */
const READY_MS = 5_000;
const CAPTURE_MS = 10_000;

export interface DesktopBodiesOptions {
  /** What the body needs of the shell: sending it moves and captures, and hearing its windows and the user's hand. */
  shell: Pick<ShellProcess, "send" | "on" | "next">;
  store: Store;
  /** Sends a bridge event to every window. */
  broadcast(name: string, payload: unknown): void;
  watchWorld: WorldWatch;
  /** The character's model as `look at: body` names it. */
  vrm(presetId: string): string;
  timings?: Partial<BodyTimings>;
  clock?: Clock;
}

/** The window places the shell reported, by window id. */
type Geometry = Extract<ShellToHost, { type: "geometry" }>;

export interface DesktopBodies extends BodyProvider {
  /** The host moved a window itself (reset position): her body is where the window is now. */
  placed(id: string, x: number, y: number): void;
  dispose(): void;
}

/** The provider of main's body on this desktop. */
export function createDesktopBodies(opts: DesktopBodiesOptions): DesktopBodies {
  const places = new Map<string, Geometry>();
  let live: LiveBody | null = null;
  // The desktop as main's body last read it (null while no body watches it), and the pet windows told they are
  // covered (the others were told nothing or told uncovered, as a page starts).
  let world: World | null = null;
  const covered = new Set<string>();
  /** Tells each pet window whether other windows cover all of it, when that changed (`yui://occlusion`). */
  const tellPets = () => {
    if (!world && covered.size === 0) return;
    const pets = new Set(openPetIds(opts.store));
    for (const [id, g] of places) {
      if (id === live?.presetId || !pets.has(id)) continue;
      const occluded = coveredAt(world, g);
      if (covered.has(id) === occluded) continue;
      if (occluded) covered.add(id);
      else covered.delete(id);
      opts.broadcast(OCCLUSION_EVENT, { presetId: id, occluded } satisfies OcclusionEvent);
    }
  };
  const off = opts.shell.on((m) => {
    const placed = m.type === "mapped" || m.type === "geometry" || m.type === "drag-end";
    if (placed) places.set(m.id, { ...m, type: "geometry" });
    // A window opened anew has a new page, which starts uncovered.
    if (m.type === "mapped" || m.type === "closed") covered.delete(m.id);
    if (m.type === "closed") places.delete(m.id);
    if (live && "id" in m && m.id === live.presetId) live.fromShell(m);
    // Only a covered pet window's move can change what it was told: the last reading has the others where
    // they were (a moved window matches none of its windows until the next reading, and counts as uncovered).
    else if (placed && covered.has(m.id)) tellPets();
  });
  /** Main's body read the desktop (or stopped watching it: null, and every pet window draws again). */
  const seen = (w: World | null) => {
    world = w;
    tellPets();
  };
  return {
    attach(presetId) {
      // A body no longer main's (another attached since) tells nothing; the first reading may come while
      // this one is still being made.
      let self: LiveBody | null = null;
      const body = new LiveBody(
        presetId,
        opts,
        () => places.get(presetId) ?? null,
        (w) => {
          if (self === null || live === self) seen(w);
        },
      );
      self = body;
      live = body;
      return body;
    },
    placed(id, x, y) {
      if (live?.presetId === id) live.placedByHost(x, y);
    },
    dispose() {
      off();
      live?.dispose();
      live = null;
    },
  };
}

/**
 * Whether other windows stacked above the character window placed at `g` cover all of it: the window model's
 * own windows (`hers`) are matched to it by place.
 */
function coveredAt(world: World | null, g: Geometry | null): boolean {
  if (!g || !world?.hers) return false;
  const mine = world.hers.find(
    (w) => w.rect.width === g.width && w.rect.height === g.height && w.rect.x === g.x && w.rect.y === g.y,
  );
  return mine ? fullyCovered(mine.rect, mine.above) : false;
}

let captureSeq = 0;

class LiveBody implements AttachedBody {
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

  constructor(
    readonly presetId: string,
    private readonly o: DesktopBodiesOptions,
    private readonly place: () => Geometry | null,
    /** Each reading of the desktop, and null once this body stops watching it. */
    private readonly seen: (world: World | null) => void,
  ) {
    // The machine's own timers (the bed's phases, a wake) are told to her page at once, not at the next tick.
    const clock = o.clock ?? realClock;
    this.clock = {
      now: () => clock.now(),
      setTimer: (ms, fn) =>
        clock.setTimer(ms, () => {
          fn();
          this.tick();
        }),
    };
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

  /** The machine exists once the desktop was read and her window's place is known. */
  private ensureMachine(): BodyMachine | null {
    if (this.machine || this.disposed) return this.machine;
    const g = this.place();
    if (!g || !this.world) return null;
    const settings = () => {
      const v = this.o.store.get(bodySettingsKey(this.presetId));
      return { ...DEFAULT_BODY_SETTINGS, ...(v && typeof v === "object" ? v : {}) };
    };
    this.machine = new BodyMachine({
      clock: this.clock,
      world: this.world,
      start: { x: g.x + g.width / 2, y: g.y + g.height },
      body: { width: g.width, height: g.height },
      timings: this.o.timings,
      settings: {
        wakeTimeoutMs: () => settings().wake_timeout_s * 1000,
        reducedMotion: () => settings().reduced_motion,
      },
    });
    this.sent = { x: g.x, y: g.y };
    for (const w of this.readyWaiters.splice(0)) w();
    return this.machine;
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

  /** Her window's place for a snapshot: bottom-center at the point under her (lower when she sits). */
  private windowAt(s: BodySnapshot): { x: number; y: number; width: number; height: number } {
    const g = this.place();
    const width = g?.width ?? 0;
    const height = g?.height ?? 0;
    const drop = s.posture === "sitting" ? Math.round(height * SIT_DROP) : 0;
    return {
      x: Math.round(s.position.x - width / 2),
      y: Math.round(s.position.y - height + drop),
      width,
      height,
    };
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
    // While the user drags her, the window manager moves the window.
    if (s.posture !== "dragging") {
      const at = this.windowAt(s);
      if (at.x !== this.sent.x || at.y !== this.sent.y) {
        this.sent = { x: at.x, y: at.y };
        this.o.shell.send({ type: "move", id: this.presetId, x: at.x, y: at.y });
      }
    }
    const ev: BodyEvent = {
      presetId: this.presetId,
      posture: s.posture,
      peek: s.peek,
      bed: s.bed,
      moving: s.moving,
      facing: this.facing,
      occluded: this.occluded(),
    };
    const key = JSON.stringify(ev);
    if (key !== this.lastEvent) {
      this.lastEvent = key;
      this.o.broadcast(BODY_EVENT, ev);
    }
    // `watch` is unset while the watch's first reading is told synchronously (the constructor).
    if (this.movesMatter()) this.watch?.resume();
    if (s.moving) this.timer = setTimeout(() => this.tick(), MOVE_TICK_MS);
  }

  /**
   * Other windows' moves matter while she sits on one or is on her way (a polled watch polls then); otherwise
   * a fresh reading before each gesture or look is enough. X11's watch follows every move by its events.
   */
  private movesMatter(): boolean {
    const s = this.machine?.snapshot();
    return !s || s.perch !== null || s.moving || s.posture === "dragging";
  }

  /** Whether other windows stacked above her window cover all of it (she then draws nothing). */
  private occluded(): boolean {
    return coveredAt(this.world, this.place());
  }

  fromShell(m: ShellToHost): void {
    // Her window's place and the user's hand; not the silhouette's `shape` updates, which come many times a second.
    if (m.type !== "mapped" && m.type !== "geometry" && m.type !== "drag" && m.type !== "drag-end") return;
    const machine = this.ensureMachine();
    if (!machine) return;
    if (m.type === "drag") machine.dragStart();
    else if (m.type === "geometry" && machine.snapshot().posture === "dragging") {
      machine.dragMove({ x: m.x + m.width / 2, y: m.y + m.height });
    } else if (m.type === "drag-end") {
      machine.dragEnd({ x: m.x + m.width / 2, y: m.y + m.height });
      this.sent = { x: m.x, y: m.y };
    }
    this.tick();
  }

  placedByHost(x: number, y: number): void {
    const machine = this.machine;
    const g = this.place();
    if (!machine || !g) return;
    // The host's own move (reset position) counts as the user's hand: a running gesture is interrupted.
    machine.dragStart();
    machine.dragEnd({ x: x + g.width / 2, y: y + g.height });
    this.sent = { x, y };
    this.tick();
  }

  async bodyAction(args: BodyActionArgs, signal: AbortSignal): Promise<BodyActionResult> {
    const m = await this.ready();
    if (!m) return "unsupported";
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
    return {
      window: this.windowAt(s),
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
    return perchTargets(this.world);
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

  private async capture(r: Rect): Promise<Buffer> {
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
    this.tick();
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.timer);
    this.watch.stop();
    this.seen(null);
    for (const w of this.readyWaiters.splice(0)) w();
  }
}
