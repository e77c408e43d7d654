// Test helpers for the ingress and the avatar mod: a scripted executor (a free port: @yui/mod-kit/testing).
import type { AvatarExecutor, BodyActionArgs, BodyActionResult } from "../../src/protocol/body.ts";

/** One recorded gesture: its arguments and the signal it was given. */
export interface GestureCall {
  args: BodyActionArgs;
  signal: AbortSignal;
}

/** An AvatarExecutor that answers from a script and records what it was asked. */
export interface ScriptedExecutor extends AvatarExecutor {
  calls: GestureCall[];
  /** The next answers of bodyAction, in order (then "ok"); a function runs with the call. */
  script: Array<BodyActionResult | ((c: GestureCall) => Promise<BodyActionResult>)>;
  body: unknown;
  perch: unknown;
}

/** Creates a scripted executor with the given state answers. */
export function scriptedExecutor(body: unknown = {}, perch: unknown = {}): ScriptedExecutor {
  const ex: ScriptedExecutor = {
    calls: [],
    script: [],
    body,
    perch,
    async bodyAction(args, signal) {
      const call = { args, signal };
      ex.calls.push(call);
      const next = ex.script.shift() ?? "ok";
      return typeof next === "function" ? next(call) : next;
    },
    async bodyState() {
      return ex.body;
    },
    async perchTargets() {
      return ex.perch;
    },
    async screenshot() {
      return null;
    },
  };
  return ex;
}

/** Resolves when the signal aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener("abort", () => resolve(), { once: true });
  });
}

/** A queued gesture that hangs until its call is aborted, then answers `answer`. */
export interface HangingGesture {
  /** Resolves once the executor started the gesture. */
  started: Promise<void>;
  /** The signal the gesture was given (undefined until it started). */
  signal(): AbortSignal | undefined;
}

/** Queues on `ex` a gesture that waits for its abort (timeout, hang-up, cancel) and then answers `answer`. */
export function queueHangingGesture(ex: ScriptedExecutor, answer: BodyActionResult): HangingGesture {
  let seen: AbortSignal | undefined;
  let markStarted = () => {};
  const started = new Promise<void>((r) => {
    markStarted = r;
  });
  ex.script.push(async (c) => {
    seen = c.signal;
    markStarted();
    await aborted(c.signal);
    return answer;
  });
  return { started, signal: () => seen };
}
