// Test helpers: the real desktop-control CLI as a child process, and the real MCP SDK client.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { connectClient } from "@yui/mod-kit";

const MAIN = path.resolve(import.meta.dirname, "..", "main.ts");

/** A running `desktop-control` process and the stderr it printed so far. */
export interface ModProcess {
  child: ChildProcess;
  url: string;
  stderr: () => string;
  stdout: () => string;
  stop(): Promise<void>;
}

/** Starts `desktop-control <args>` under tsx with `env`, and waits for its MCP URL when serving. */
export async function startMod(
  args: string[],
  env: NodeJS.ProcessEnv,
  waitForUrl = true,
): Promise<ModProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  let out = "";
  child.stderr!.on("data", (c: Buffer) => {
    err += c.toString();
  });
  child.stdout!.on("data", (c: Buffer) => {
    out += c.toString();
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await Promise.race([once(child, "exit"), new Promise((r) => setTimeout(r, 5000))]);
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  if (!waitForUrl) return { child, url: "", stderr: () => err, stdout: () => out, stop };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no URL from desktop-control:\n${err}`)), 30_000);
      // The listening line is on stdout (the kit's launchMod), after the setup lines on stderr.
      child.stdout!.on("data", () => {
        const m = /MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.once("exit", (code) => reject(new Error(`desktop-control exited with ${code}:\n${err}`)));
    });
    return { child, url, stderr: () => err, stdout: () => out, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

/** A connected SDK client with a call helper that returns the CallToolResult. */
export async function mcpClient(url: string) {
  const c = await connectClient(url);
  const call = async (name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> =>
    (await c.client.callTool({ name, arguments: args })) as CallToolResult;
  return { ...c, call };
}

/** The text of a result's first content item. */
export function textOf(r: CallToolResult): string {
  const first = r.content[0];
  if (first?.type !== "text")
    throw new Error(`expected text content, got ${JSON.stringify(r).slice(0, 300)}`);
  return first.text;
}
