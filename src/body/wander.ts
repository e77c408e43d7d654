// A little life of her own (docs/body.md): while the user is at the computer and nobody has moved or talked to her
// for a few minutes, she now and then does something by herself: a few steps along her surface, watching the
// pointer, sitting on a nearby window's top edge. Never a gesture: anything else that moves her stops it
// (machine.ts ownMove). Pure: the clock, the chance, the user's idle time and the setting are injected.
import type { Clock } from "./clock.ts";
import type { BodySnapshot, OwnMove } from "./machine.ts";
import { freeTopEdge, type PerchSize, perchXOn } from "./perch.ts";
import type { Size } from "./placement.ts";
import { floorUnder } from "./surface.ts";
import type { BodyTimings } from "./timings.ts";
import type { World } from "./world.ts";

/** What she does by herself once: one of her own moves, or watching the pointer a while. */
export type WanderPlan = OwnMove | { kind: "watch" };

/** How far a window's edge may be (across, from her) for her to go and sit on it, in widths of her window. */
const REACH = 3;

/**
 * What she does now, by chance among what she can do where she is: on the floor a few steps either way, sitting
 * on the nearest window whose top edge has room for her within reach, or watching the pointer; sitting on an edge,
 * a few steps along it, or watching the pointer.
 */
export function planWander(
  world: World,
  s: Pick<BodySnapshot, "position" | "perch" | "posture">,
  size: Size,
  perch: PerchSize,
  random: () => number,
): WanderPlan {
  const steps = size.width * (0.3 + 0.7 * random()) * (random() < 0.5 ? -1 : 1);
  const walk: WanderPlan = { kind: "walk", x: Math.round(s.position.x + steps) };
  const options: WanderPlan[] = [walk, { kind: "watch" }];
  if (!s.perch && s.posture === "standing") {
    const sit = nearestSeat(world, s.position, size, perch);
    if (sit) options.push(sit);
  }
  return options[Math.min(options.length - 1, Math.floor(random() * options.length))]!;
}

/** The nearest window top edge within reach above her floor with room for her, and where she would sit on it. */
function nearestSeat(
  world: World,
  at: { x: number; y: number },
  size: Size,
  perch: PerchSize,
): OwnMove | null {
  const floor = floorUnder(world, at);
  let best: { windowId: string; x: number } | null = null;
  for (const [i, w] of world.windows.entries()) {
    if (w.rect.y >= floor - size.height * 0.2) continue;
    const x = perchXOn(w.rect, freeTopEdge(world, i, perch.strip), perch.width);
    if (x === null || Math.abs(x - at.x) > REACH * size.width) continue;
    if (!best || Math.abs(x - at.x) < Math.abs(best.x - at.x)) best = { windowId: w.id, x };
  }
  return best ? { kind: "sit", ...best } : null;
}

export interface WanderDeps {
  clock: Clock;
  random: () => number;
  timings: Pick<BodyTimings, "wanderMinMs" | "wanderMaxMs" | "watchMs" | "userIdleMs">;
  /** The body it moves. */
  body: {
    free(): boolean;
    ownMove(m: OwnMove): boolean;
    stopOwn(): void;
    snapshot(): BodySnapshot;
  };
  world(): World;
  size(): Size;
  perch(): PerchSize;
  /** How long ago the user's last input was (ms); null when unknown (she then takes the user to be there). */
  userIdleMs(): Promise<number | null>;
  /** The setting ("moves on her own"), read each time. */
  enabled(): boolean;
  /** She watches the pointer for `ms`; answers what stops it. */
  watch(ms: number): () => void;
  /** One of her own moves started (the executor places her from now on). */
  moved(): void;
  /** What she did or why not, one line each time her wait is over (logs; tests read it). */
  log(line: string): void;
}

/** The wanderer's controls: the executor tells it about others' activity; setAllowed pauses it in one call. */
export interface Wanderer {
  /**
   * Allows or stops her moves of her own (on by default): false stops a move or a watch of hers at once (she ends
   * on a surface) and waits no more until allowed again. The doze (issue 31) pauses it while she dozes.
   */
  setAllowed(on: boolean): void;
  /** Someone moved her or talked to her: what she does by herself stops, and her wait starts again. */
  activity(): void;
  dispose(): void;
}

/** Starts her wait for a move of her own (a few minutes, by chance between wanderMinMs and wanderMaxMs). */
export function createWanderer(d: WanderDeps): Wanderer {
  let allowed = true;
  let cancel: (() => void) | null = null;
  let stopWatch: (() => void) | null = null;
  let disposed = false;
  const schedule = () => {
    cancel?.();
    cancel = null;
    if (!allowed || disposed) return;
    const { wanderMinMs: min, wanderMaxMs: max } = d.timings;
    cancel = d.clock.setTimer(min + d.random() * Math.max(0, max - min), () => void due());
  };
  const endWatch = () => {
    stopWatch?.();
    stopWatch = null;
  };
  const due = async () => {
    cancel = null;
    const why = await reason();
    if (!allowed || disposed) return;
    if (why) d.log(`wander: not now (${why})`);
    else act();
    schedule();
  };
  const reason = async (): Promise<string | null> => {
    if (!d.enabled()) return "off";
    if (!d.body.free()) return "busy";
    const idle = await d.userIdleMs().catch(() => null);
    if (idle !== null && idle > d.timings.userIdleMs) return "the user is away";
    return d.body.free() ? null : "busy";
  };
  const act = () => {
    const plan = planWander(d.world(), d.body.snapshot(), d.size(), d.perch(), d.random);
    if (plan.kind === "watch") {
      endWatch();
      stopWatch = d.watch(d.timings.watchMs);
      d.log("wander: watches the pointer");
    } else if (d.body.ownMove(plan)) {
      d.moved();
      d.log(plan.kind === "walk" ? `wander: walks to x ${plan.x}` : `wander: sits on ${plan.windowId}`);
    } else {
      d.log("wander: not now (nowhere to go)");
    }
  };
  schedule();
  return {
    setAllowed(on) {
      if (on === allowed) return;
      allowed = on;
      if (on) return schedule();
      cancel?.();
      cancel = null;
      endWatch();
      d.body.stopOwn();
    },
    activity() {
      endWatch();
      schedule();
    },
    dispose() {
      disposed = true;
      cancel?.();
      cancel = null;
      endWatch();
    },
  };
}
