// get_activity_timeline's merge: a day of witness transitions into ordered app / idle segments.
// Merging is the only processing: no summarising, no thresholds, no renaming.
import { dayBounds, localIso } from "./localtime.ts";
import type { WitnessEvent } from "./witness-log.ts";

/** One stretch in front of one app window. */
export interface AppSegment {
  start: string;
  end: string;
  type: "app";
  app: string;
  window_title: string | null;
  duration_min: number;
}

/** One stretch of user idleness. */
export interface IdleSegment {
  start: string;
  end: string;
  type: "idle";
  duration_min: number;
}

export type Segment = AppSegment | IdleSegment;

/** The tool's answer. */
export interface Timeline {
  date: string;
  segments: Segment[];
}

interface Open {
  start: number;
  app?: { app: string; title: string | null };
}

/** Merges one day's events (any order) into segments; the last open stretch ends at the day's end or `now`. */
export function mergeTimeline(date: string, events: readonly WitnessEvent[], now: Date): Timeline {
  const bounds = dayBounds(date);
  if (!bounds || bounds.start.getTime() >= now.getTime()) return { date, segments: [] };
  const dayStart = bounds.start.getTime();
  const dayEnd = Math.min(bounds.end.getTime(), now.getTime());

  // Lines are written in the order they were observed, but idle_start / idle_end are back-dated to
  // when input actually stopped or resumed; sorting by time (stable) puts each where it happened,
  // so an app change logged after the user went idle falls inside the idle stretch.
  const timed = events
    .map((e, i) => ({ e, i, t: Math.max(dayStart, Date.parse(e.t)) }))
    .filter((x) => Number.isFinite(x.t) && x.t <= dayEnd)
    .sort((a, b) => a.t - b.t || a.i - b.i);

  const segments: Segment[] = [];
  let front: { app: string; title: string | null } | null = null;
  let idle = false;
  let open: Open | null = null;

  const close = (t: number): void => {
    if (open && t > open.start) {
      const start = localIso(new Date(open.start), true);
      const end = localIso(new Date(t), true);
      const duration_min = Math.round((t - open.start) / 600) / 100;
      // Fields in the spec's order: start, end, type, then the rest.
      segments.push(
        open.app
          ? { start, end, type: "app", app: open.app.app, window_title: open.app.title, duration_min }
          : { start, end, type: "idle", duration_min },
      );
    }
    open = null;
  };
  const openFront = (t: number): void => {
    open = front ? { start: t, app: front } : null;
  };

  for (const { e, t } of timed) {
    switch (e.type) {
      case "app": {
        const next = e.app === null ? null : { app: e.app, title: e.title };
        const same = front?.app === next?.app && front?.title === next?.title;
        front = next;
        // While idle, a front change is background churn: remembered, but the idle stretch goes on.
        if (!idle && !same) {
          close(t);
          openFront(t);
        }
        break;
      }
      case "idle_start":
        if (!idle) {
          close(t);
          idle = true;
          open = { start: t };
        }
        break;
      case "idle_end":
        if (idle) {
          close(t);
          idle = false;
          openFront(t);
        }
        break;
      case "stop":
        // The recorder stopped: nothing is known until it starts again and writes the front anew.
        close(t);
        front = null;
        idle = false;
        break;
    }
  }
  close(dayEnd);
  return { date, segments };
}
