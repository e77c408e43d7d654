/**
 * The avatar mod's tools (spec: mods.txt "avatar"), each one call to the YUI app's ingress. A gesture that
 * did not happen is a tool error carrying the client's reason word; an unusable ingress is a tool error
 * saying what to do.
 */
import { type CallToolResult, McpServer, type ServerContext } from "@modelcontextprotocol/server";
import { toolError, toolJson, toolText } from "@yui/mod-kit";
import { z } from "zod";
import { type IngressAnswer, type IngressClient, IngressError } from "./ingress-client.ts";

export const NAME = "avatar";
export const VERSION = "0.1.0";

const SPOTS = ["center", "top_left", "top_right", "bottom_left", "bottom_right"] as const;

/** The tools' descriptions, from the spec's table. */
export const DESCRIPTIONS = {
  get_body_state:
    "Window position + monitor, posture (standing / sitting / peeking / dragging / walking / climbing / lying and " +
    "what it is perched on), loaded VRM, whether a move is running",
  list_perch_targets:
    "The client's tracked perch candidates plus the peek edges; each window carries app, title and rect, with app " +
    "and title null for an unnamed window",
  sit_on_window:
    "Sit on the top edge of that app's window — the frontmost one whose top edge is reachable. Tool error on " +
    "failure: not_found, blocked (every candidate window is covered), interrupted, busy",
  peek: "Peek around the left or right edge of the frontmost window. Tool error on failure: not_found, interrupted, busy",
  move_to:
    "Move to center or a named corner, optionally on a given monitor (the display number). Tool error on failure: " +
    "interrupted, busy",
  stand:
    "Return to the standing position: leaves a perch or a peek, and gets her out of bed (in bed it starts the wake " +
    "clip, about 22 s, and answers ok as it starts)",
  go_to_bed:
    "Lay her on a bed at the spot she stands on; answers ok when the lie-down clip starts. She sleeps until the " +
    "client's wake timeout, a click or a message from the user, or stand. Tool error: unsupported where the bed " +
    "scene cannot start (reduced motion), interrupted, busy",
} as const;

/** A read's answer as a tool result: the value as JSON, or the reason word as a tool error. */
function readResult(a: IngressAnswer, field: string): CallToolResult {
  if (a.result !== "ok") return toolError(a.result);
  const v = a[field];
  return typeof v === "object" && v !== null && !Array.isArray(v)
    ? toolJson(v as Record<string, unknown>)
    : toolText(JSON.stringify(v ?? null));
}

/** A gesture's answer: `ok`, or a tool error whose text is the client's reason word. */
function gestureResult(a: IngressAnswer): CallToolResult {
  return a.result === "ok" ? toolText("ok") : toolError(a.result);
}

/** Runs one ingress call; an unusable ingress becomes a tool error with its message. */
async function guarded(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof IngressError) return toolError(e.message);
    throw e;
  }
}

/** Builds one session's server over the ingress client. */
export function buildServer(ingress: IngressClient): McpServer {
  const server = new McpServer({ name: NAME, version: VERSION });
  server.registerTool(
    "get_body_state",
    { description: DESCRIPTIONS.get_body_state, inputSchema: z.object({}) },
    async (_args, ctx) =>
      guarded(async () => readResult(await ingress.read("/avatar/body", ctx.mcpReq.signal), "body")),
  );
  server.registerTool(
    "list_perch_targets",
    { description: DESCRIPTIONS.list_perch_targets, inputSchema: z.object({}) },
    async (_args, ctx) =>
      guarded(async () =>
        readResult(await ingress.read("/avatar/perch-targets", ctx.mcpReq.signal), "perch_targets"),
      ),
  );
  const gesture =
    (action: string) =>
    async (args: Record<string, unknown>, ctx: ServerContext): Promise<CallToolResult> =>
      guarded(async () => gestureResult(await ingress.gesture(action, args, ctx.mcpReq.signal)));
  server.registerTool(
    "sit_on_window",
    {
      description: DESCRIPTIONS.sit_on_window,
      inputSchema: z.object({
        app: z.string().min(1).max(256).describe("The app's name, as list_perch_targets shows it"),
      }),
    },
    gesture("sit_on_window"),
  );
  server.registerTool(
    "peek",
    { description: DESCRIPTIONS.peek, inputSchema: z.object({ side: z.enum(["left", "right"]) }) },
    gesture("peek"),
  );
  server.registerTool(
    "move_to",
    {
      description: DESCRIPTIONS.move_to,
      inputSchema: z.object({
        spot: z.enum(SPOTS),
        monitor: z
          .number()
          .int()
          .min(0)
          .nullable()
          .optional()
          .describe("The display number (as get_body_state reports it); omitted or null keeps hers"),
      }),
    },
    gesture("move_to"),
  );
  server.registerTool(
    "stand",
    { description: DESCRIPTIONS.stand, inputSchema: z.object({}) },
    gesture("stand"),
  );
  server.registerTool(
    "go_to_bed",
    { description: DESCRIPTIONS.go_to_bed, inputSchema: z.object({}) },
    gesture("go_to_bed"),
  );
  return server;
}
