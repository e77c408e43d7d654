// The real command line as a child process: what an operator (or the container's CMD) starts.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { connectClient, LAUNCH_MESSAGES } from "@yui/mod-kit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PORT, NO_SANDBOX_WARNING, WORKSPACE_ENV } from "./config.ts";

const main = path.join(import.meta.dirname, "main.ts");
// Each test starts real node processes (tsx compiling on the fly); on a loaded 2-core machine that
// alone can take tens of seconds, so these get more room than the project default.
const SPAWN_TIMEOUT = 120_000;
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

/** Resolves with the MCP URL the command prints once it serves. */
function servedUrl(child: ChildProcess): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout?.on("data", (c: Buffer) => {
      out += c;
      const m = /^\[shell-sandbox\] MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (m?.[1]) resolve(m[1]);
    });
    child.on("exit", () => reject(new Error("exited before serving")));
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
  it.concurrent(
    "serves the workspace on the port it prints, in bwrap by default, and exits cleanly on SIGTERM",
    async () => {
      const child = start(["--workspace", ws, "--port", "0"], { SHELL_SANDBOX_TEST_TOKEN: "must-not-leak" });
      const done = collect(child);
      const url = await servedUrl(child);
      const c = await connectClient(url);
      const r = (await c.client.callTool({
        name: "run",
        arguments: { command: "pwd; env; cat /etc/shadow" },
      })) as CallToolResult;
      // A tool error (no structured result) shows its own text rather than a TypeError further down.
      expect(r.isError ?? false, JSON.stringify(r.content)).toBe(false);
      const out = r.structuredContent as { stdout: string; stderr: string };
      expect(out.stdout.startsWith(`${ws}\n`)).toBe(true);
      expect(out.stdout).not.toContain("must-not-leak");
      expect(out.stderr).toBe("cat: /etc/shadow: Permission denied\n");
      await c.close();
      child.kill("SIGTERM");
      const { code, stdout, stderr } = await done;
      expect(code).toBe(0);
      expect(stdout).toContain("; sandbox bwrap");
      expect(stderr).not.toContain("warning");
    },
    SPAWN_TIMEOUT,
  );

  it.concurrent(
    "refuses to start when bubblewrap cannot work here, saying why and that --sandbox none would run unsandboxed",
    async () => {
      // An outer bwrap without capabilities that forbids new user namespaces: the inner one cannot work.
      const child = spawn(
        "bwrap",
        [
          ...["--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-user", "--disable-userns"],
          ...["--cap-drop", "ALL", "--die-with-parent", "--chdir", repoRoot, "--"],
          ...[process.execPath, "--import", "tsx", main, "--workspace", ws, "--port", "0"],
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      const { code, stdout, stderr } = await collect(child);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toMatch(
        /^error: shell-sandbox cannot start: the default sandbox, bwrap, cannot work here, and commands would run with no boundary: fix that, or start with --sandbox none to accept it\. Why: bwrap: .+\n$/,
      );
    },
    SPAWN_TIMEOUT,
  );

  it.concurrent(
    "with --sandbox none warns at start that commands have no boundary",
    async () => {
      const child = start(["--workspace", ws, "--port", "0", "--sandbox", "none"]);
      const done = collect(child);
      await servedUrl(child);
      child.kill("SIGTERM");
      const { code, stdout, stderr } = await done;
      expect(code).toBe(0);
      expect(stdout).toContain("; sandbox none");
      expect(stderr).toBe(`[shell-sandbox] ${NO_SANDBOX_WARNING}\n`);
    },
    SPAWN_TIMEOUT,
  );

  it.concurrent(
    "in --container mode answers the gateway (where published connections come from) and no other peer, as root without capabilities",
    async () => {
      // bubblewrap stands in for the container: a private network namespace with a veth pair as the
      // container's interface (10.88.0.2) and the gateway (10.88.0.1), /run/.containerenv so
      // --container is allowed, and the server started without any capability (setpriv).
      const probe = path.join(import.meta.dirname, "testing", "probe.ts");
      const ip =
        "ip link add v0 type veth peer name v1 && ip addr add 10.88.0.2/24 dev v0 && " +
        "ip addr add 10.88.0.1/24 dev v1 && ip link set v0 up && ip link set v1 up && " +
        "ip route add default via 10.88.0.1 dev v0";
      const url = `http://10.88.0.2:${DEFAULT_PORT}/mcp`;
      const script =
        `${ip} && { setpriv --bounding-set=-all --inh-caps=-all node --import tsx ${main} --container --workspace ${ws} & } && ` +
        // Waits for the relay as long as the server lives (the test's timeout bounds it), not a fixed time.
        `server=$!; until (echo > /dev/tcp/10.88.0.2/${DEFAULT_PORT}) 2>/dev/null; do kill -0 $server || break; sleep 0.2; done; ` +
        `(echo > /dev/tcp/127.0.0.1/${DEFAULT_PORT}) 2>/dev/null && echo relay-on-loopback; ` +
        // Another container on the network: its own address, not the gateway's. The relay may cut it off
        // before the request is written (bash writes it line by line): the write then fails with EPIPE,
        // which must not kill the probe (SIGPIPE ignored) before it reports what it read.
        "(trap '' PIPE; exec 3<>/dev/tcp/10.88.0.2/" +
        DEFAULT_PORT +
        " || exit; printf 'GET /mcp HTTP/1.1\\r\\nHost: localhost\\r\\n\\r\\n' >&3; " +
        'echo "other peer got: $(timeout 10 head -c 8 <&3)") 2>/dev/null; ' +
        `node --import tsx ${probe} ${url} "pwd; grep ^CapEff /proc/self/status" 10.88.0.1; ` +
        "kill %1; wait";
      const child = spawn(
        "bwrap",
        [
          ...["--bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/run"],
          ...["--ro-bind", "/dev/null", "/run/.containerenv", "--unshare-net", "--unshare-pid"],
          ...["--die-with-parent", "--chdir", repoRoot, "--", "bash", "-c", script],
        ],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      const { stdout, stderr } = await collect(child);
      expect(stdout, stderr).toContain(`published as port ${DEFAULT_PORT} of the container`);
      expect(stdout).not.toContain("relay-on-loopback");
      // The relay accepted the TCP connection and closed it without a byte.
      expect(stdout).toContain("other peer got: \n");
      const [gateway] = stdout.split("\n").filter((l) => l.startsWith("{"));
      expect(JSON.parse(gateway ?? "{}")).toEqual({
        exit_code: 0,
        stdout: `${ws}\nCapEff:\t0000000000000000\n`,
        stderr: "",
        truncated: false,
        timed_out: false,
      });
    },
    SPAWN_TIMEOUT,
  );

  it.concurrent(
    "refuses to start without a workspace outside a container, saying how to give one",
    async () => {
      const { code, stderr } = await collect(start(["--port", "0"]));
      expect(code).toBe(2);
      expect(stderr).toContain(`error: no workspace: pass --workspace DIR or set ${WORKSPACE_ENV}`);
    },
    SPAWN_TIMEOUT,
  );

  it.concurrent(
    "ends with one clear line and exit status 1 when its port is taken",
    async () => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
      const port = (taken.address() as AddressInfo).port;
      try {
        const { code, stdout, stderr } = await collect(start(["--workspace", ws, "--port", String(port)]));
        expect(code).toBe(1);
        expect(stdout).toBe("");
        expect(stderr).toBe(`${LAUNCH_MESSAGES.portInUse(port)}\n`);
      } finally {
        taken.close();
      }
    },
    SPAWN_TIMEOUT,
  );

  it.concurrent(
    "refuses a workspace that does not exist",
    async () => {
      const { code, stderr } = await collect(
        start(["--port", "0"], { [WORKSPACE_ENV]: path.join(ws, "nope") }),
      );
      expect(code).toBe(1);
      expect(stderr).toMatch(/cannot be used: ENOENT/);
    },
    SPAWN_TIMEOUT,
  );
});
