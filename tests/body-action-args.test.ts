/**
 * body_action's arguments have one rule set (BodyActionArgsSchema, src/protocol/body.ts): the tool, the bridge
 * command and the ingress's gesture routes accept and refuse the same calls, each in its own words.
 */
import { describe, expect, it } from "vitest";
import { parseGesture } from "../host/ingress/avatar-routes.ts";
import { createAvatarTools } from "../src/app/tools/avatar.ts";
import type { AvatarExecutor, BodyActionArgs } from "../src/protocol/body.ts";
import { parseCommandArgs } from "../src/protocol/commands.ts";

const given: BodyActionArgs[] = [];
const executor: AvatarExecutor = {
  bodyAction: async (args) => {
    given.push(args);
    return "ok";
  },
  bodyState: async () => ({}),
  perchTargets: async () => ({}),
  screenshot: async () => null,
};
const [bodyAction] = createAvatarTools({ executor: () => executor, screenCaptureOn: async () => false });
const ctx = { signal: new AbortController().signal, turnId: "t", presetId: "yui" };

/** What each caller makes of one call: the tool's answer, the ingress's 400 (or its arguments), the bridge's. */
async function callers(args: Record<string, unknown>) {
  given.length = 0;
  const tool = await bodyAction!.run(args, ctx);
  const { action, ...body } = args;
  const ingress = parseGesture(action as BodyActionArgs["action"], body);
  let bridge: unknown;
  try {
    bridge = parseCommandArgs("body_action", typeof ingress === "string" ? args : ingress);
  } catch (e) {
    bridge = (e as Error).message.split(":")[0];
  }
  return { tool: tool === "ok" ? given[0] : tool, ingress, bridge };
}

describe("body_action's arguments, one rule set", () => {
  it.each([
    [
      "an app over 256 characters",
      { action: "sit_on_window", app: "x".repeat(257) },
      "error: invalid field app",
      "invalid field app: an app name of 1 to 256 characters",
    ],
    ["an empty app", { action: "sit_on_window", app: "" }, "error: missing field app", "missing field app"],
    ["no side", { action: "peek" }, "error: missing field side", "missing field side"],
    [
      "a side that is not left or right",
      { action: "peek", side: "up" },
      "error: invalid field side",
      "invalid field side: one of left, right",
    ],
    [
      "a negative monitor",
      { action: "move_to", spot: "center", monitor: -1 },
      "error: invalid field monitor",
      "invalid field monitor: an integer >= 0, or null",
    ],
  ])("refuses %s in each caller's words", async (_name, args, toolSays, ingressSays) => {
    expect(await callers(args)).toEqual({
      tool: toolSays,
      ingress: ingressSays,
      bridge: "invalid arguments",
    });
  });

  it.each([
    [
      { action: "sit_on_window", app: "x".repeat(256) },
      { action: "sit_on_window", app: "x".repeat(256) },
    ],
    [
      { action: "move_to", spot: "center", monitor: 1 },
      { action: "move_to", spot: "center", monitor: 1 },
    ],
    // A field the action does not take is ignored by the tool and the ingress alike.
    [{ action: "stand", side: "up" }, { action: "stand" }],
  ])("accepts %j as the same executor arguments everywhere", async (args, expected) => {
    expect(await callers(args)).toEqual({ tool: expected, ingress: expected, bridge: expected });
  });
});
