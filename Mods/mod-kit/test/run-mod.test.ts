import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { connectClient } from "../src/client.ts";

const FIXTURE = fileURLToPath(new URL("./fixtures/example-mod.ts", import.meta.url));
const children: ChildProcess[] = [];

/** Starts the example mod and resolves with its first stdout line (or its exit). */
function start(...args: string[]): Promise<{ child: ChildProcess; line: string; stderr: () => string }> {
  const child = spawn(process.execPath, ["--import", "tsx", FIXTURE, ...args], { stdio: "pipe" });
  children.push(child);
  let out = "";
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolve) => {
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      if (out.includes("\n")) resolve({ child, line: out.split("\n")[0]!, stderr: () => err });
    });
    child.on("exit", () => resolve({ child, line: out, stderr: () => err }));
  });
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

describe("runMod", () => {
  it("serves on the --port given, announces the URL, and exits 0 on SIGTERM", async () => {
    const { child, line } = await start("--port", "0");
    const url = /MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/.exec(line)?.[1];
    expect(line).toMatch(/^\[example\] MCP on http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const { client, close } = await connectClient(url!);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["ping"]);
    await close();
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    expect((await exited)[0]).toBe(0);
  });

  it("exits 1 with a clear message when the port is taken", async () => {
    const first = await start("--port", "0");
    const port = /:(\d+)\/mcp$/.exec(first.line)?.[1];
    const second = await start("--port", port!);
    await (second.child.exitCode === null ? once(second.child, "exit") : Promise.resolve());
    expect(second.child.exitCode).toBe(1);
    expect(second.stderr()).toBe(
      `[example] cannot start: port ${port} on 127.0.0.1 is already in use; stop the other process or pass --port\n`,
    );
  });
});
