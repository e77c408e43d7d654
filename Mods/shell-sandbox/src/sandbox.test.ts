import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_TIMEOUT_EXIT_CODE } from "./limits.ts";
import { type Runner, runCommand } from "./run.ts";
import { bwrapArgv, makeRunner, SANDBOX_PATH, unreadableEntries } from "./sandbox.ts";
import { processesAfterDeath, uniqueSleep } from "./testing/proc.ts";

// These run the real bubblewrap (Debian's bubblewrap, listed in apt-packages.txt), as root here.
let ws: string;
let boxed: Runner;

beforeAll(async () => {
  ws = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-bwrap-")));
  process.env.SHELL_SANDBOX_TEST_PASSED = "passed-on";
  process.env.SHELL_SANDBOX_TEST_TOKEN = "must-not-leak";
  boxed = makeRunner("bwrap", {
    workspace: ws,
    pass: ["SHELL_SANDBOX_TEST_PASSED", "SHELL_SANDBOX_TEST_UNSET"],
  });
});

afterAll(async () => {
  delete process.env.SHELL_SANDBOX_TEST_PASSED;
  delete process.env.SHELL_SANDBOX_TEST_TOKEN;
  await rm(ws, { recursive: true, force: true });
});

const run = (command: string, timeoutMs = 20_000) => runCommand(boxed, command, timeoutMs);

describe("bwrap mode", () => {
  it("runs in the workspace, which is writable and shared with the host", async () => {
    const r = await run("pwd; echo made > from-box.txt");
    expect(r).toMatchObject({ exit_code: 0, stdout: `${ws}\n` });
    expect(await readFile(path.join(ws, "from-box.txt"), "utf8")).toBe("made\n");
  });

  it("keeps the system read-only and hides home directories and the host's /tmp", async () => {
    const r = await run(
      `touch /usr/x 2>/dev/null && echo usr-writable; touch /etc/x 2>/dev/null && echo etc-writable;` +
        ` ls /root 2>/dev/null && echo root-visible; ls /home 2>/dev/null && echo home-visible;` +
        ` ls -A /tmp`,
    );
    // /tmp is a fresh tmpfs: it holds at most the mount point on the way to the workspace.
    const rel = path.relative("/tmp", ws);
    const onTheWay = rel.startsWith("..") ? "" : `${rel.split(path.sep)[0]}\n`;
    expect(r.stdout).toBe(onTheWay);
  });

  it("drops every capability and gives the command a clean environment, never the server's", async () => {
    const r = await run("grep '^CapEff' /proc/self/status; env -u PWD -u SHLVL -u _ | sort");
    expect(r.stdout).toBe(
      "CapEff:\t0000000000000000\n" +
        [
          `HOME=${ws}`,
          "LANG=C.UTF-8",
          `PATH=${SANDBOX_PATH}`,
          "SHELL_SANDBOX_TEST_PASSED=passed-on",
          "TERM=dumb",
        ]
          .map((l) => `${l}\n`)
          .join(""),
    );
    expect(r.stdout).not.toContain("must-not-leak");
  });

  it("covers up what only root may read in /etc, such as /etc/shadow", async () => {
    const hidden = unreadableEntries("/etc");
    expect(hidden).toContain("/etc/shadow");
    const r = await run("cat /etc/hostname > /dev/null && echo hostname-readable; cat /etc/shadow");
    expect(r).toMatchObject({ exit_code: 1, stdout: "hostname-readable\n" });
    expect(r.stderr).toBe("cat: /etc/shadow: Permission denied\n");
  });

  it("gives the command its own PID namespace", async () => {
    const r = await run("ls /proc | grep -cx '[0-9]*'");
    // Only bwrap's init, the shell and ls (and grep): nothing of the host.
    expect(Number(r.stdout.trim())).toBeLessThan(6);
  });

  it("on timeout kills everything the command started inside the sandbox", async () => {
    const s = uniqueSleep();
    const r = await run(`sleep ${s} & (sleep ${s}) & echo started; sleep ${s}`, 1500);
    expect(r).toMatchObject({ exit_code: RUN_TIMEOUT_EXIT_CODE, timed_out: true, stdout: "started\n" });
    // The kill reaches bwrap; its init dies with it and the kernel ends the whole PID namespace,
    // which takes a moment, so this polls /proc for a few seconds rather than looking once.
    const left = await processesAfterDeath(["sleep", s]);
    expect(left).toEqual([]);
  });

  it("builds the argv with the workspace bound read-write and the shell last", () => {
    const argv = bwrapArgv("/w", "/bin/bash", { hidden: ["/etc/shadow"] });
    expect(argv.slice(-3)).toEqual(["--", "/bin/bash", "-c"]);
    const bind = argv.indexOf("--bind");
    expect(argv.slice(bind, bind + 3)).toEqual(["--bind", "/w", "/w"]);
    expect(argv).toContain("--die-with-parent");
    expect(argv).not.toContain("--share-net");
    const etc = argv.indexOf("/etc");
    const shadow = argv.indexOf("/etc/shadow");
    expect(etc).toBeGreaterThan(0);
    expect(argv.slice(shadow - 2, shadow + 1)).toEqual(["--ro-bind", "/dev/null", "/etc/shadow"]);
    expect(shadow).toBeGreaterThan(etc);
  });
});
