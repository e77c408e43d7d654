// Her timings (docs/body.md): speeds, the bed's phases, the gesture limit, her fall, and how often she moves on
// her own. From configuration (`YUI_BODY_TIMINGS` in the desktop app), so tests and demos scale them.
import { GESTURE_LIMIT_MS } from "../protocol/body.ts";

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
  /** Her fall's acceleration (pixels per second squared): a drop of 600 px takes about half a second. */
  fallPxPerS2: number;
  /** Her landing at the end of a fall. */
  landMs: number;
  /** The wanderer (wander.ts): the shortest and longest wait before she moves on her own again. */
  wanderMinMs: number;
  wanderMaxMs: number;
  /** How long she watches the pointer when she does so on her own. */
  watchMs: number;
  /** The user counts as at the computer while their last input is at most this old. */
  userIdleMs: number;
}

export const DEFAULT_TIMINGS: BodyTimings = {
  walkPxPerS: 300,
  climbPxPerS: 200,
  bedSetupMs: 1_500,
  lieDownMs: 4_000,
  wakeMs: 22_000,
  bedFadeMs: 800,
  gestureMs: GESTURE_LIMIT_MS,
  fallPxPerS2: 5_000,
  landMs: 300,
  wanderMinMs: 180_000,
  wanderMaxMs: 420_000,
  watchMs: 6_000,
  userIdleMs: 120_000,
};
