/**
 * Main's avatar executor as a window or `yui chat --host` reaches it: the host holds the body (docs/body.md "The
 * avatar executor") and every call is one of the bridge's body commands. The host answers body_action's
 * `unsupported` itself while no body is attached, and fails the reads with `unsupported`, which the look tool
 * reports as `error: unsupported`.
 */
import type { AvatarExecutor, BodyActionResult } from "../../protocol/body.ts";
import type { BridgeInvoke } from "./client.ts";

/**
 * An AvatarExecutor over the host's body commands. A body_action the bridge could not carry (the host went away)
 * still ends in one of the spec's words: `timeout` when its caller stopped it, otherwise `unsupported`.
 */
export function executorOverBridge(invoke: BridgeInvoke): AvatarExecutor {
  return {
    async bodyAction(args, signal) {
      try {
        return await invoke("body_action", args, { signal });
      } catch {
        return (signal.aborted ? "timeout" : "unsupported") satisfies BodyActionResult;
      }
    },
    bodyState: () => invoke("body_read", { at: "body" }),
    perchTargets: () => invoke("body_read", { at: "perch_targets" }),
    screenshot: (monitor) => invoke("body_screen", monitor === undefined ? {} : { monitor }),
  };
}
