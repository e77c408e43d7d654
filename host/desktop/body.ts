/**
 * Her body on the desktop (docs/body.md "The avatar executor"): the provider of main's body (a LiveBody,
 * live-body.ts, while main's desktop page holds it) and the pet windows' cover. The host's body slot
 * (host/server/body-slot.ts) attaches one while main's desktop page holds it.
 */

import { openPetIds } from "../../src/app/presets/presets.ts";
import type { Clock } from "../../src/body/clock.ts";
import type { BodyTimings } from "../../src/body/machine.ts";
import type { World } from "../../src/body/world.ts";
import { OCCLUSION_EVENT, type OcclusionEvent } from "../../src/protocol/body.ts";
import type { BodyProvider } from "../server/body-slot.ts";
import type { Store } from "../store/store.ts";
import type { WorldWatcher } from "../x11/poll.ts";
import type { UserInput } from "../x11/windows.ts";
import { coveredAt, type Geometry, LiveBody } from "./live-body.ts";
import type { ShellProcess } from "./shell-process.ts";

export { SIT_DROP } from "../../src/body/placement.ts";
export { MOVE_TICK_MS } from "./live-body.ts";

/**
 * Where the windows of other applications come from: starts a watch that tells each change and reads at once on
 * refresh(). On X11 events keep it current; a polled one (macOS) polls only while `pollWhile` says moves matter
 * (she sits on a window, she is on her way).
 */
export type WorldWatch = (onChange: (world: World) => void, pollWhile: () => boolean) => WorldWatcher;

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
  /** The user at the computer (X11: the idle time and the pointer over the host's X connection). */
  input?: UserInput;
  /** The chance her moves of her own are drawn from (default Math.random). */
  random?: () => number;
  /** Lines for the host's log: what she did by herself, or why not. */
  log?: (line: string) => void;
}

export interface DesktopBodies extends BodyProvider {
  /** The host moved a window itself (reset position): her body is where the window is now. */
  placed(id: string, x: number, y: number): void;
  /**
   * Main's body makes room for a focused window of YUI's (room.ts): true when she walks aside to the window place
   * `x` (or back, `null`), false when she cannot now, null when `id` has no body here.
   */
  stepAside(id: string, x: number | null): boolean | null;
  /**
   * Allows or stops her moves of her own in one call (default allowed): false stops a move or a watch of hers at
   * once and she waits no more until allowed again (the doze pauses her wandering while she dozes).
   */
  setWandering(on: boolean): void;
  dispose(): void;
}

/** The provider of main's body on this desktop. */
export function createDesktopBodies(opts: DesktopBodiesOptions): DesktopBodies {
  const places = new Map<string, Geometry>();
  let live: LiveBody | null = null;
  let wandering = true;
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
  const bodies: DesktopBodies = {
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
      body.pause("doze", !wandering);
      // Her page's doze (body_rest): her wandering pauses while she dozes.
      return Object.assign(body, {
        rest(dozing: boolean) {
          opts.log?.(dozing ? "dozing: her own moves pause" : "awake: her own moves resume");
          bodies.setWandering(!dozing);
        },
      });
    },
    placed(id, x, y) {
      if (live?.presetId === id) live.placedByHost(x, y);
    },
    stepAside: (id, x) => (live?.presetId === id ? live.stepAside(x) : null),
    setWandering(on) {
      wandering = on;
      live?.pause("doze", !on);
    },
    dispose() {
      off();
      live?.dispose();
      live = null;
    },
  };
  return bodies;
}
