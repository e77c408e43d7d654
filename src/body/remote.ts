// Main's avatar executor as a window or `yui chat` reaches it: the host holds the body (docs/body.md "The
// avatar executor"), and these calls go over the bridge's body commands. The host answers body_action's
// `unsupported` itself while no body is attached, and fails the reads with `unsupported`, which the look tool
// reports as `error: unsupported`.
import type { AvatarExecutor, BodyActionResult, ScreenShot } from "../protocol/body.ts";

/** The bridge's invoke (a page's bridge client, a Node bridge connection). */
export type BodyInvoke = (
  command: string,
  args: unknown,
  opts?: { signal?: AbortSignal },
) => Promise<unknown>;

/** An AvatarExecutor whose every call is one body command on the host. */
export function executorOverBridge(invoke: BodyInvoke): AvatarExecutor {
  return {
    bodyAction: async (args, signal) => (await invoke("body_action", args, { signal })) as BodyActionResult,
    bodyState: () => invoke("body_read", { at: "body" }),
    perchTargets: () => invoke("body_read", { at: "perch_targets" }),
    screenshot: async (monitor) =>
      (await invoke("body_screen", monitor === undefined ? {} : { monitor })) as ScreenShot | null,
  };
}
