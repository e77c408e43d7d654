import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { connectClient } from "../src/client.ts";
import { LAUNCH_MESSAGES, startFailureLine } from "../src/launch.ts";

const FIXTURE = fileURLToPath(new URL("./fixtures/example-mod.ts", import.meta.url));
const FAILING = fileURLToPath(new URL("./fixtures/failing-mod.ts", import.meta.url));
const children: ChildProcess[] = [];

/** Starts the example mod and resolves with its first stdout line (or its exit). */
function start(...args: string[]): Promise<Started> {
  return startFile(FIXTURE, ...args);
}

interface Started {
  child: ChildProcess;
  line: string;
  stderr: () => string;
  /** Settles when the process exited and its output was read to the end. */
  closed: Promise<unknown>;
}

function startFile(file: string, ...args: string[]): Promise<Started> {
  const child = spawn(process.execPath, ["--import", "tsx", file, ...args], { stdio: "pipe" });
  const closed = once(child, "close");
  children.push(child);
  let out = "";
  let err = "";
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  return new Promise((resolve) => {
    child.stdout?.on("data", (c: Buffer) => {
      out += c.toString();
      if (out.includes("\n")) resolve({ child, line: out.split("\n")[0]!, stderr: () => err, closed });
    });
    child.on("exit", () => resolve({ child, line: out, stderr: () => err, closed }));
  });
}

afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill("SIGKILL");
});

describe("runMod", () => {
  it("stops cleanly (exit 0) on a SIGTERM sent the moment the listening line is read", async () => {
    // A supervisor (or a test) that stops the mod as soon as it announces itself must not find the
    // signal's default action (death by SIGTERM, no close) in a gap before the handlers exist.
    for (let i = 0; i < 3; i++) {
      const { child, line } = await start("--port", "0");
      expect(line).toMatch(/^\[example\] MCP on /);
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      expect(await exited).toEqual([0, null]);
    }
  });

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

  it("exits 1 with one line naming the port when the port is taken", async () => {
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
    const port = (held.address() as AddressInfo).port;
    try {
      const second = await start("--port", String(port));
      await second.closed;
      expect(second.child.exitCode).toBe(1);
      expect(second.stderr()).toBe(`${LAUNCH_MESSAGES.portInUse(port)}\n`);
      expect(second.stderr()).toBe(
        `error: port ${port} on 127.0.0.1 is already in use; choose another with --port N\n`,
      );
    } finally {
      held.close();
    }
  });

  it("exits 1 with one line, no stack, when the start fails otherwise", async () => {
    const r = await startFile(FAILING);
    await r.closed;
    expect(r.child.exitCode).toBe(1);
    expect(r.stderr()).toBe(
      "error: broken cannot start: the config is unreadable at some/stack/frame.ts:1:1\n",
    );
  });
});

describe("startFailureLine", () => {
  it("names the port for EADDRINUSE whatever the message", () => {
    const err = Object.assign(new Error("listen EADDRINUSE: address already in use 127.0.0.1:9003"), {
      code: "EADDRINUSE",
    });
    expect(startFailureLine("factorio", 9003, err)).toBe(
      "error: port 9003 on 127.0.0.1 is already in use; choose another with --port N",
    );
  });

  it("keeps any other failure to one line of bounded length", () => {
    const line = startFailureLine("x", 1, new Error(`bad\n${"y".repeat(1 << 20)}`));
    expect(line.split("\n")).toHaveLength(1);
    expect(line.length).toBeLessThan(600);
    expect(line).toContain(`(${4 + (1 << 20)} characters)`);
    expect(startFailureLine("x", 1, "plain")).toBe("error: x cannot start: plain");
  });
});
