import { McpServer } from "@modelcontextprotocol/server";
import { toolError, toolJson } from "@yui/mod-kit";
import { z } from "zod";
import type { Bridge } from "./bridge.ts";

export const MOD_NAME = "factorio";
export const MOD_VERSION = "0.1.0";
export const DEFAULT_PORT = 9003;

/** The spec's tool descriptions, written once (the tests list the tools from here). */
export const TOOL_DESCRIPTIONS = {
  factorio_status: "Game mod version, map id, newest event sequence, tick, and host state",
  factorio_events:
    "Cached events after since_seq (exclusive). None starts at the unread cursor; a value above it is clamped down, a value below it re-reads. Returns {events, next_seq, more} with a contiguous page of at most 200",
  factorio_snapshot: "State snapshot of the factory; omit sections for every section",
  factorio_find: "Find entities by name, type, area, or near the host player",
  factorio_inspect: "Read one entity by its unit number",
  factorio_recipe: "Read one recipe by name",
  factorio_say: "Say one line in game chat under the body's name",
  factorio_ping: "Ping a map position with a text label",
  factorio_jobs: "Every job record the game mod holds, oldest first",
  factorio_jobs_enqueue:
    "Queue 1 to 8 jobs in the order given; each job is {kind, args, timeout_ticks?}. Returns the assigned ids. The game mod validates the kind and the args and answers bad_request with the field at fault",
  factorio_jobs_cancel:
    "Cancel one queued or running job by integer id, or every job with all. A cancel fires no event",
  factorio_idle:
    "Set the idle mode follow or stay; stay takes an optional pos and otherwise stands at the body's position. Lifts the stop latch",
  factorio_stop:
    "Stop the body's walking, mining, and crafting and latch it stopped. A job enqueue or factorio_idle lifts the latch",
} as const;

const Pos = z.object({ x: z.number(), y: z.number() }).describe("A map position in tiles");

/** Drops null/undefined so the game mod sees only the arguments the agent gave. */
function given(args: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([, v]) => v !== null && v !== undefined));
}

/** Builds the factorio MCP server (one per session) over the shared bridge. */
export function buildServer(bridge: Bridge): McpServer {
  const server = new McpServer({ name: MOD_NAME, version: MOD_VERSION });
  const run = async (fn: () => Promise<Record<string, unknown>> | Record<string, unknown>) => {
    try {
      return toolJson(await fn());
    } catch (err) {
      // Every failure reaches the agent as a tool error with a reason it can act on.
      return toolError((err as Error).message);
    }
  };
  const op = (name: string, args: Record<string, unknown> = {}) => run(() => bridge.call(name, given(args)));
  const d = TOOL_DESCRIPTIONS;

  server.registerTool("factorio_status", { description: d.factorio_status, inputSchema: z.object({}) }, () =>
    run(() => bridge.status()),
  );
  server.registerTool(
    "factorio_events",
    {
      description: d.factorio_events,
      inputSchema: z.object({
        since_seq: z.number().int().min(0).nullish(),
        limit: z.number().int().min(1).default(200),
      }),
    },
    ({ since_seq, limit }) => run(() => bridge.events(since_seq, limit)),
  );
  server.registerTool(
    "factorio_snapshot",
    { description: d.factorio_snapshot, inputSchema: z.object({ sections: z.array(z.string()).nullish() }) },
    (a) => op("snapshot", a),
  );
  server.registerTool(
    "factorio_find",
    {
      description: d.factorio_find,
      inputSchema: z.object({
        area: z.object({ left_top: Pos, right_bottom: Pos }).nullish(),
        around: z.number().positive().nullish().describe("Radius in tiles around the host player"),
        name: z.string().min(1).nullish(),
        type: z.string().min(1).nullish(),
        limit: z.number().int().min(1).max(200).default(50),
      }),
    },
    (a) => op("find", a),
  );
  server.registerTool(
    "factorio_inspect",
    { description: d.factorio_inspect, inputSchema: z.object({ unit_number: z.number().int().min(1) }) },
    (a) => op("inspect", a),
  );
  server.registerTool(
    "factorio_recipe",
    { description: d.factorio_recipe, inputSchema: z.object({ name: z.string().min(1) }) },
    (a) => op("recipe", a),
  );
  server.registerTool(
    "factorio_say",
    { description: d.factorio_say, inputSchema: z.object({ text: z.string().min(1).max(500) }) },
    (a) => op("say", a),
  );
  server.registerTool(
    "factorio_ping",
    { description: d.factorio_ping, inputSchema: z.object({ pos: Pos, text: z.string().min(1).max(200) }) },
    (a) => op("ping", a),
  );
  server.registerTool("factorio_jobs", { description: d.factorio_jobs, inputSchema: z.object({}) }, () =>
    op("jobs"),
  );
  server.registerTool(
    "factorio_jobs_enqueue",
    {
      description: d.factorio_jobs_enqueue,
      inputSchema: z.object({
        jobs: z
          .array(
            z.object({
              kind: z.string().min(1),
              args: z.record(z.string(), z.unknown()).default({}),
              timeout_ticks: z.number().int().positive().optional(),
            }),
          )
          .min(1)
          .max(8),
      }),
    },
    (a) => op("jobs_enqueue", a),
  );
  server.registerTool(
    "factorio_jobs_cancel",
    {
      description: d.factorio_jobs_cancel,
      inputSchema: z.object({ id: z.union([z.number().int().min(1), z.literal("all")]) }),
    },
    ({ id }) => op("jobs_cancel", { job: id }),
  );
  server.registerTool(
    "factorio_idle",
    {
      description: d.factorio_idle,
      inputSchema: z.object({ mode: z.enum(["follow", "stay"]), pos: Pos.nullish() }),
    },
    (a) => op("idle", a),
  );
  server.registerTool("factorio_stop", { description: d.factorio_stop, inputSchema: z.object({}) }, () =>
    op("stop"),
  );
  return server;
}
