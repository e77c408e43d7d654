// The five MCP tools of the shell-sandbox mod, registered on a fresh McpServer per session.
import { type CallToolResult, McpServer } from "@modelcontextprotocol/server";
import { toolError, toolJson, toolText } from "@yui/mod-kit";
import * as z from "zod";
import { editTextFile, readFileWindow, readImage, writeTextFile } from "./files.ts";
import {
  READ_LIMIT_DEFAULT_LINES,
  RUN_OUTPUT_CAP_BYTES,
  RUN_TIMEOUT_DEFAULT_S,
  RUN_TIMEOUT_MAX_S,
} from "./limits.ts";
import { ToolError } from "./messages.ts";
import { type Runner, runCommand } from "./run.ts";
import type { Workspace } from "./workspace.ts";

export const MOD_NAME = "shell-sandbox";
export const MOD_VERSION = "0.1.0";

/** What every session's tools work on. */
export interface SandboxContext {
  workspace: Workspace;
  runner: Runner;
}

/** The tool descriptions the agent reads, written once (the docs page quotes the same limits). */
export const TOOL_DESCRIPTIONS = {
  run:
    `Run a shell command (bash -c) in the workspace; returns exit_code, stdout, stderr, truncated, timed_out. ` +
    `stdout and stderr are each capped at ${RUN_OUTPUT_CAP_BYTES} bytes (truncated says so). ` +
    `timeout is in seconds, default ${RUN_TIMEOUT_DEFAULT_S}, at most ${RUN_TIMEOUT_MAX_S}; on timeout the whole ` +
    `process group is killed, exit_code is 124 and what was printed so far is returned. stdin is empty.`,
  read_file:
    `Read a UTF-8 text file as a window of lines. offset is the 1-based first line (default 1), limit the ` +
    `number of lines (default and at most ${READ_LIMIT_DEFAULT_LINES}). The first content block is the exact ` +
    `text of those lines; the second says which lines they are and how many remain.`,
  write_file: "Create or overwrite a UTF-8 text file with content; parent directories are created.",
  edit_file:
    "Replace the exact text old with new in a text file. old must occur exactly once unless replace_all is " +
    "true; zero or several matches are refused with the count.",
  read_image: "Read an image file (png, jpg, jpeg, gif, webp) and return it as image content.",
} as const;

const path = z.string().describe("Path relative to the workspace, or absolute inside it");

const runOutput = z.object({
  exit_code: z.number().int(),
  stdout: z.string(),
  stderr: z.string(),
  truncated: z.boolean(),
  timed_out: z.boolean(),
});

/** Turns a refusal into a tool error; anything else is a bug, logged and still answered (never a crash). */
async function guarded(work: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof ToolError) return toolError(e.message);
    process.stderr.write(`[${MOD_NAME}] tool failed: ${(e as Error)?.stack ?? String(e)}\n`);
    return toolError(`internal error: ${(e as Error)?.message ?? String(e)}`);
  }
}

/** Builds an McpServer with the five tools over the context's workspace and runner. */
export function buildServer(ctx: SandboxContext): McpServer {
  const server = new McpServer({ name: MOD_NAME, version: MOD_VERSION });
  const { workspace, runner } = ctx;

  server.registerTool(
    "run",
    {
      description: TOOL_DESCRIPTIONS.run,
      inputSchema: z.object({
        command: z.string().describe("The shell command line"),
        timeout: z
          .number()
          .int()
          .min(1)
          .max(RUN_TIMEOUT_MAX_S)
          .optional()
          .describe(`Seconds before the command is killed (default ${RUN_TIMEOUT_DEFAULT_S})`),
      }),
      outputSchema: runOutput,
    },
    ({ command, timeout }) =>
      guarded(async () => {
        const result = await runCommand(runner, command, (timeout ?? RUN_TIMEOUT_DEFAULT_S) * 1000);
        return toolJson({ ...result });
      }),
  );

  server.registerTool(
    "read_file",
    {
      description: TOOL_DESCRIPTIONS.read_file,
      inputSchema: z.object({
        path,
        offset: z.number().int().min(1).optional().describe("1-based first line (default 1)"),
        limit: z
          .number()
          .int()
          .min(1)
          .max(READ_LIMIT_DEFAULT_LINES)
          .optional()
          .describe(`Lines to return (default ${READ_LIMIT_DEFAULT_LINES})`),
      }),
    },
    ({ path: p, offset, limit }) =>
      guarded(async () => {
        const w = await readFileWindow(workspace, p, offset, limit);
        const { content, note, ...where } = w;
        return {
          content: [
            { type: "text", text: content },
            { type: "text", text: note },
          ],
          structuredContent: { path: p, ...where },
        };
      }),
  );

  server.registerTool(
    "write_file",
    {
      description: TOOL_DESCRIPTIONS.write_file,
      inputSchema: z.object({ path, content: z.string().describe("The whole new content of the file") }),
    },
    ({ path: p, content }) => guarded(async () => toolText(await writeTextFile(workspace, p, content))),
  );

  server.registerTool(
    "edit_file",
    {
      description: TOOL_DESCRIPTIONS.edit_file,
      inputSchema: z.object({
        path,
        old: z.string().describe("Exact text to replace"),
        new: z.string().describe("Replacement text"),
        replace_all: z.boolean().optional().describe("Replace every occurrence (default false)"),
      }),
    },
    ({ path: p, old, new: replacement, replace_all }) =>
      guarded(async () => toolText(await editTextFile(workspace, p, old, replacement, replace_all ?? false))),
  );

  server.registerTool(
    "read_image",
    { description: TOOL_DESCRIPTIONS.read_image, inputSchema: z.object({ path }) },
    ({ path: p }) =>
      guarded(async () => {
        const img = await readImage(workspace, p);
        return { content: [{ type: "image", data: img.data, mimeType: img.mimeType }] };
      }),
  );

  return server;
}
