// The real command line as a child process: what an operator (or the container's CMD) starts.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { connectClient } from "@yui/mod-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WORKSPACE_ENV } from "./config.ts";

const main = path.join(import.meta.dirname, "main.ts");
const repoRoot = path.resolve(import.meta.dirname, "..", "..", "..");

let ws: string;
beforeAll(async () => {
  ws = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-cli-")));
});
afterAll(async () => {
  await rm(ws, { recursive: true, force: true });
});

function start(args: string[], env: NodeJS.ProcessEnv = {}): ChildProcess {
  const cleanEnv = { ...process.env, ...env };
  if (!(WORKSPACE_ENV in env)) delete cleanEnv[WORKSPACE_ENV];
  // node --import tsx, as the image's CMD does: one process (the tsx CLI would add a second one).
  return spawn(process.execPath, ["--import", "tsx", main, ...args], {
    cwd: repoRoot,
    env: cleanEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function collect(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (c: Buffer) => {
    stdout += c;
  });
  child.stderr?.on("data", (c: Buffer) => {
    stderr += c;
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("the shell-sandbox command", () => {
  it.concurrent("serves the workspace on the port it prints, and exits cleanly on SIGTERM", async () => {
    const child = start(["--workspace", ws, "--port", "0"]);
    const done = collect(child);
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout?.on("data", (c: Buffer) => {
        const m = /serving (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(String(c));
        if (m?.[1]) resolve(m[1]);
      });
      child.on("exit", () => reject(new Error("exited before serving")));
    });
    const c = await connectClient(url);
    const r = (await c.client.callTool({ name: "run", arguments: { command: "pwd" } })) as CallToolResult;
    expect(r.structuredContent).toMatchObject({ exit_code: 0, stdout: `${ws}\n` });
    await c.close();
    child.kill("SIGTERM");
    expect((await done).code).toBe(0);
  });

  it.concurrent("refuses to start without a workspace outside a container, saying how to give one", async () => {
    const { code, stderr } = await collect(start(["--port", "0"]));
    expect(code).toBe(2);
    expect(stderr).toContain(`error: no workspace: pass --workspace DIR or set ${WORKSPACE_ENV}`);
  });

  it.concurrent("refuses a workspace that does not exist", async () => {
    const { code, stderr } = await collect(
      start(["--port", "0"], { [WORKSPACE_ENV]: path.join(ws, "nope") }),
    );
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot be used: ENOENT/);
  });
});
