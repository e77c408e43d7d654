// The MCP face of the mod: the six tools registered on an McpServer for @yui/mod-kit's serveMcp.
import { type CallToolResult, McpServer } from "@modelcontextprotocol/server";
import { toolError, toolJson, toolText } from "@yui/mod-kit";
import { z } from "zod";
import { ToolError } from "./messages.ts";
import type { DesktopTools } from "./tools.ts";

/** The mod's name and version as MCP reports them. */
export const SERVER_INFO = { name: "desktop-control", version: "0.1.0" } as const;

/** The default port of the spec's catalog. */
export const DEFAULT_PORT = 9000;

/** The tool descriptions the agent reads (the spec's wording). */
export const TOOL_DESCRIPTIONS = {
  screenshot: "Capture every display as PNG (one image per monitor), long edge downscaled to 1280px",
  list_running_apps: "Names of visible (non-background) apps",
  get_frontmost_window: "{ app, title } for the frontmost app; title is null when it has no front window",
  get_activity_timeline:
    "One day of the witness log as ordered app / idle segments; an absent day file is an empty timeline",
  open_app: "Launch + focus an allowlisted app",
  close_app: "Gracefully quit an allowlisted app",
} as const;

// A ToolError is the agent's to read; anything else is a bug or a broken helper, reported the same
// way (never a crash) but prefixed with the tool so the log and the agent can tell them apart.
async function guarded(tool: string, fn: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ToolError) return toolError(e.message);
    return toolError(`${tool} failed: ${(e as Error)?.message ?? String(e)}`);
  }
}

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, openWorldHint: false } as const;

/** Builds a fresh McpServer with the six tools over `tools`. */
export function buildServer(tools: DesktopTools): McpServer {
  const server = new McpServer(SERVER_INFO);
  server.registerTool(
    "screenshot",
    { description: TOOL_DESCRIPTIONS.screenshot, annotations: READ_ONLY },
    async () =>
      guarded("screenshot", async () => ({
        content: (await tools.screenshot()).map((png) => ({
          type: "image" as const,
          data: png.toString("base64"),
          mimeType: "image/png",
        })),
      })),
  );
  server.registerTool(
    "list_running_apps",
    {
      description: TOOL_DESCRIPTIONS.list_running_apps,
      annotations: READ_ONLY,
      outputSchema: z.object({ apps: z.array(z.string()) }),
    },
    async () => guarded("list_running_apps", async () => toolJson({ apps: await tools.listRunningApps() })),
  );
  server.registerTool(
    "get_frontmost_window",
    {
      description: TOOL_DESCRIPTIONS.get_frontmost_window,
      annotations: READ_ONLY,
      outputSchema: z.object({ app: z.string().nullable(), title: z.string().nullable() }),
    },
    async () =>
      guarded("get_frontmost_window", async () => toolJson({ ...(await tools.getFrontmostWindow()) })),
  );
  server.registerTool(
    "get_activity_timeline",
    {
      description: TOOL_DESCRIPTIONS.get_activity_timeline,
      annotations: READ_ONLY,
      inputSchema: z.object({ date: z.string().describe("The local calendar day, YYYY-MM-DD") }),
    },
    async ({ date }) =>
      guarded("get_activity_timeline", async () => toolJson({ ...(await tools.getActivityTimeline(date)) })),
  );
  const nameInput = z.object({
    name: z.string().describe("The app's name as listed in DESKTOP_CONTROL_ALLOWED_APPS"),
  });
  server.registerTool(
    "open_app",
    {
      description: TOOL_DESCRIPTIONS.open_app,
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
      inputSchema: nameInput,
    },
    async ({ name }) => guarded("open_app", async () => toolText(await tools.openApp(name))),
  );
  server.registerTool(
    "close_app",
    {
      description: TOOL_DESCRIPTIONS.close_app,
      annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
      inputSchema: nameInput,
    },
    async ({ name }) => guarded("close_app", async () => toolText(await tools.closeApp(name))),
  );
  return server;
}
