/**
 * The avatar routes the avatar mod calls: body state, perch targets and the five gestures, forwarded to
 * main's avatar executor (docs/signals-ingress.md "The avatar routes").
 */
import {
  type AvatarExecutor,
  BODY_ACTION_RESULTS,
  BODY_ACTIONS,
  type BodyActionArgs,
  type BodyActionField,
  type BodyActionResult,
  checkBodyAction,
  GESTURE_WAIT_MS,
  PEEK_SIDES,
  SPOTS,
} from "../../src/protocol/body.ts";
import { INGRESS_ERRORS } from "./messages.ts";

/** How long the ingress waits for an answer before it aborts the work and answers timeout. */
export interface AvatarTimeouts {
  /**
   * A gesture: a backstop past the body's own limit (GESTURE_LIMIT_MS), which stops her and answers timeout
   * itself; the ingress's wait only ends a body that could not answer.
   */
  gestureMs: number;
  readMs: number;
}
export const DEFAULT_AVATAR_TIMEOUTS: AvatarTimeouts = { gestureMs: GESTURE_WAIT_MS, readMs: 10_000 };

/** The read routes: path → executor method and the answer's field. */
export const AVATAR_READS = {
  "/avatar/body": { field: "body", read: (ex: AvatarExecutor) => ex.bodyState() },
  "/avatar/perch-targets": { field: "perch_targets", read: (ex: AvatarExecutor) => ex.perchTargets() },
} as const;

// What each field must be, in the words of its 400; the rules themselves are body_action's (checkBodyAction).
const RULE_WORDS: Record<BodyActionField, string> = {
  app: "an app name of 1 to 256 characters",
  side: `one of ${PEEK_SIDES.join(", ")}`,
  spot: `one of ${SPOTS.join(", ")}`,
  monitor: "an integer >= 0, or null",
};

/** The gesture a POST path names, or undefined. */
export function gestureOf(path: string): (typeof BODY_ACTIONS)[number] | undefined {
  const m = /^\/avatar\/([a-z_]+)$/.exec(path);
  return m && (BODY_ACTIONS as readonly string[]).includes(m[1]!)
    ? (m[1] as (typeof BODY_ACTIONS)[number])
    : undefined;
}

/**
 * Checks a gesture's body with body_action's own check (the path names the action; null is "not given");
 * answers its BodyActionArgs or the 400 message naming the field.
 */
export function parseGesture(action: (typeof BODY_ACTIONS)[number], body: unknown): BodyActionArgs | string {
  if (body === undefined) body = {};
  if (typeof body !== "object" || body === null || Array.isArray(body)) return INGRESS_ERRORS.notObject;
  const given = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null));
  const r = checkBodyAction({ ...given, action });
  if ("action" in r) return r;
  // The action comes from the path, so the problem is one of its fields.
  const name = r.field as BodyActionField;
  return r.missing ? INGRESS_ERRORS.missingField(name) : INGRESS_ERRORS.invalidField(name, RULE_WORDS[name]);
}

/** Whether the executor answered a word of the table. */
export function isBodyActionResult(v: unknown): v is BodyActionResult {
  return typeof v === "string" && (BODY_ACTION_RESULTS as readonly string[]).includes(v);
}

/** Races work against a timeout and a hang-up; "timeout" when the time ran out first. */
export async function withDeadline<T>(
  ms: number,
  hangUp: AbortSignal,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T | "timeout"> {
  const ac = new AbortController();
  const onHangUp = () => ac.abort(new Error("the caller hung up"));
  hangUp.addEventListener("abort", onHangUp, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => {
      ac.abort(new Error("timeout"));
      resolve("timeout");
    }, ms);
  });
  try {
    return await Promise.race([work(ac.signal), deadline]);
  } finally {
    clearTimeout(timer);
    hangUp.removeEventListener("abort", onHangUp);
  }
}
