import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMMAND_MAX_BYTES, RUN_OUTPUT_CAP_BYTES, RUN_TIMEOUT_EXIT_CODE } from "./limits.ts";
import { msg } from "./messages.ts";
import { RUN_MARKER, type Runner, runCommand } from "./run.ts";
import { makeRunner } from "./sandbox.ts";
import { processesAfterDeath, processesRunning, uniqueSleep } from "./testing/proc.ts";

let ws: string;
let plain: Runner;

beforeAll(async () => {
  ws = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-run-")));
  plain = makeRunner("none", { workspace: ws });
});

afterAll(async () => {
  await rm(ws, { recursive: true, force: true });
});

describe("runCommand", () => {
  it("returns the exit code, stdout and stderr separately, in the workspace", async () => {
    const r = await runCommand(plain, "pwd; echo oops >&2; exit 3", 10_000);
    expect(r).toEqual({
      exit_code: 3,
      stdout: `${ws}\n`,
      stderr: "oops\n",
      truncated: false,
      timed_out: false,
    });
  });

  it("reports death by a signal as 128 + the signal number, as shells do", async () => {
    const r = await runCommand(plain, "kill -TERM $$", 10_000);
    expect(r.exit_code).toBe(128 + 15);
  });

  it("gives the command an empty stdin, so one that reads input ends", async () => {
    const r = await runCommand(plain, "cat; echo after", 10_000);
    expect(r).toMatchObject({ exit_code: 0, stdout: "after\n", timed_out: false });
  });

  it("runs bash, so bash syntax works", async () => {
    const r = await runCommand(
      plain,
      'set -o pipefail; [[ 1 == 1 ]] && [ -n "$BASH_VERSION" ] && echo bash',
      10_000,
    );
    expect(r.stdout).toBe("bash\n");
  });

  it("caps stdout at the documented byte count and says it truncated", async () => {
    const r = await runCommand(
      plain,
      `head -c ${RUN_OUTPUT_CAP_BYTES + 5000} /dev/zero | tr '\\0' a`,
      10_000,
    );
    expect(r.truncated).toBe(true);
    expect(r.stdout).toBe("a".repeat(RUN_OUTPUT_CAP_BYTES));
    expect(r.exit_code).toBe(0);
  });

  it("caps stderr separately", async () => {
    const r = await runCommand(
      plain,
      `echo small; head -c ${RUN_OUTPUT_CAP_BYTES + 1} /dev/zero | tr '\\0' e >&2`,
      10_000,
    );
    expect(r.stdout).toBe("small\n");
    expect(r.stderr.length).toBe(RUN_OUTPUT_CAP_BYTES);
    expect(r.truncated).toBe(true);
  });

  it("does not split a UTF-8 character at the cap", async () => {
    // cap-1 ASCII bytes then "é" (2 bytes): the cap falls between the two bytes of é.
    const r = await runCommand(
      plain,
      `head -c ${RUN_OUTPUT_CAP_BYTES - 1} /dev/zero | tr '\\0' a; printf '\\303\\251tail'`,
      10_000,
    );
    expect(r.truncated).toBe(true);
    expect(r.stdout).toBe("a".repeat(RUN_OUTPUT_CAP_BYTES - 1));
    expect(r.stdout).not.toContain("\uFFFD");
  });

  it("keeps a multi-byte character that fits exactly under the cap", async () => {
    const r = await runCommand(
      plain,
      `head -c ${RUN_OUTPUT_CAP_BYTES - 2} /dev/zero | tr '\\0' a; printf '\\303\\251more'`,
      10_000,
    );
    expect(r.stdout).toBe(`${"a".repeat(RUN_OUTPUT_CAP_BYTES - 2)}é`);
  });

  it("on timeout kills the whole process group, children included, and returns what was printed", async () => {
    const s = uniqueSleep();
    const r = await runCommand(
      plain,
      `sleep ${s} & (sleep ${s}; echo never) & echo started; sleep ${s}`,
      1000,
    );
    expect(r).toEqual({
      exit_code: RUN_TIMEOUT_EXIT_CODE,
      stdout: "started\n",
      stderr: "",
      truncated: false,
      timed_out: true,
    });
    expect(await processesRunning(["sleep", s])).toEqual([]);
  });

  it("returns when the shell exits, and ends the background jobs still holding its output", async () => {
    const s = uniqueSleep();
    // Were run to wait for the pipes to close, it would only end at the timeout.
    const r = await runCommand(plain, `sleep ${s} & echo done`, 20_000);
    expect(r).toMatchObject({ exit_code: 0, stdout: "done\n", timed_out: false });
    expect(await processesAfterDeath(["sleep", s])).toEqual([]);
  });

  it("ends setsid and nohup jobs too, which left the process group, when run returns", async () => {
    const s = uniqueSleep();
    const r = await runCommand(
      plain,
      `setsid sleep ${s} > /dev/null 2>&1 & nohup sleep ${s} > /dev/null 2>&1 & (setsid sleep ${s} &) ; echo started`,
      20_000,
    );
    expect(r).toMatchObject({ exit_code: 0, stdout: "started\n", timed_out: false });
    // Gone when run answers: no polling.
    expect(await processesRunning(["sleep", s])).toEqual([]);
  });

  it("ends setsid and nohup jobs at the timeout", async () => {
    const s = uniqueSleep();
    const r = await runCommand(plain, `setsid sleep ${s} & nohup sleep ${s} & sleep ${s}`, 1000);
    expect(r).toMatchObject({ exit_code: RUN_TIMEOUT_EXIT_CODE, timed_out: true });
    expect(await processesRunning(["sleep", s])).toEqual([]);
  });

  it("cannot find a job that dropped the marker and left the group: the documented limit", async () => {
    const s = uniqueSleep();
    const r = await runCommand(
      plain,
      `env -u ${RUN_MARKER} setsid sleep ${s} > /dev/null 2>&1 & until pgrep -x -f "sleep ${s}" > /dev/null; do sleep 0.05; done; echo started`,
      20_000,
    );
    expect(r.stdout).toBe("started\n");
    try {
      expect((await processesRunning(["sleep", s])).length).toBe(1);
    } finally {
      for (const pid of await processesRunning(["sleep", s])) process.kill(pid, "SIGKILL");
    }
  });

  it("gives the command a clean environment: never the server's, only the variables named with --env", async () => {
    process.env.SHELL_SANDBOX_TEST_TOKEN = "must-not-leak";
    process.env.SHELL_SANDBOX_TEST_PASSED = "passed-on";
    try {
      const runner = makeRunner("none", { workspace: ws, pass: ["SHELL_SANDBOX_TEST_PASSED"] });
      const r = await runCommand(runner, "env", 10_000);
      expect(r.stdout).not.toContain("must-not-leak");
      const names = r.stdout
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => l.slice(0, l.indexOf("=")))
        .sort();
      // bash adds PWD, SHLVL and _ itself; the marker finds the command's processes when it ends.
      expect(names).toEqual([
        "HOME",
        "LANG",
        "PATH",
        "PWD",
        RUN_MARKER,
        "SHELL_SANDBOX_TEST_PASSED",
        "SHLVL",
        "TERM",
        "_",
      ]);
      expect(r.stdout).toContain(`HOME=${ws}\n`);
      expect(r.stdout).toContain("SHELL_SANDBOX_TEST_PASSED=passed-on\n");
    } finally {
      delete process.env.SHELL_SANDBOX_TEST_TOKEN;
      delete process.env.SHELL_SANDBOX_TEST_PASSED;
    }
  });

  it("refuses a command longer than the kernel takes in one argument, pointing to a script file", async () => {
    const longest = `: ${"x".repeat(COMMAND_MAX_BYTES - 13)}; echo ran`;
    expect(Buffer.byteLength(longest)).toBe(COMMAND_MAX_BYTES - 1);
    expect(await runCommand(plain, longest, 10_000)).toMatchObject({ exit_code: 0, stdout: "ran\n" });
    const tooLong = `${longest} `;
    await expect(runCommand(plain, tooLong, 10_000)).rejects.toThrow(
      msg.commandTooLong(COMMAND_MAX_BYTES, COMMAND_MAX_BYTES),
    );
    expect(msg.commandTooLong(COMMAND_MAX_BYTES, COMMAND_MAX_BYTES)).toBe(
      `command is ${COMMAND_MAX_BYTES} bytes; the kernel passes at most ${COMMAND_MAX_BYTES - 1} bytes in one ` +
        "argument (MAX_ARG_STRLEN), so it cannot be run as it is: write it to a script file with write_file and " +
        "run that instead (e.g. bash script.sh)",
    );
  });

  it("starts a sandboxed command again when bwrap fails to set up its loopback before the shell starts", async () => {
    // A stand-in for bwrap speaking its status protocol on fd 3: the first start fails as bwrap
    // sometimes does (before any shell runs), the next runs the command and reports its exit.
    const fake = [
      `if [ ! -e ${ws}/failed-once ]; then touch ${ws}/failed-once;`,
      'echo "bwrap: loopback: Failed RTM_NEWADDR: No child processes" >&2; exit 1; fi;',
      'bash -c "$1"; printf \'{ "exit-code": %d }\\n\' $? >&3',
    ].join(" ");
    const flaky: Runner = { argv: ["/bin/bash", "-c", fake, "fake-bwrap"], cwd: ws, env: {}, bwrap: {} };
    const r = await runCommand(flaky, "echo ran; exit 3", 10_000);
    expect(r).toEqual({ exit_code: 3, stdout: "ran\n", stderr: "", truncated: false, timed_out: false });
    // Any other failure of bwrap is the command's answer, not retried.
    const broken: Runner = {
      argv: ["/bin/bash", "-c", 'echo "bwrap: Creating new namespace failed" >&2; exit 1', "fake-bwrap"],
      cwd: ws,
      env: {},
      bwrap: {},
    };
    expect(await runCommand(broken, "true", 10_000)).toMatchObject({
      exit_code: 1,
      stderr: "bwrap: Creating new namespace failed\n",
    });
  });

  it("stops a network that was still starting when the command timed out, before run answers", async () => {
    // A stand-in for bwrap: reports a pid on fd 3, then waits on stdin (--block-fd) for the network.
    const fake = 'printf \'{ "child-pid": %d }\\n\' $$ >&3; read -r _; bash -c "$1"';
    let stopped = 0;
    const slowNetwork = async () => {
      await new Promise((r) => setTimeout(r, 1500));
      return {
        stop: () => {
          stopped++;
        },
      };
    };
    const runner: Runner = {
      argv: ["/bin/bash", "-c", fake, "fake-bwrap"],
      cwd: ws,
      env: {},
      bwrap: { network: slowNetwork },
    };
    const r = await runCommand(runner, "echo never", 300);
    expect(r).toMatchObject({ exit_code: RUN_TIMEOUT_EXIT_CODE, stdout: "", timed_out: true });
    expect(stopped).toBe(1);
  });

  it("refuses an empty command and reports a shell that cannot start", async () => {
    await expect(runCommand(plain, "  ", 1000)).rejects.toThrow(msg.commandEmpty());
    await expect(runCommand(plain, "echo a\0b", 1000)).rejects.toThrow(msg.commandNul());
    const broken: Runner = { argv: ["/nonexistent/shell", "-c"], cwd: ws, env: {} };
    await expect(runCommand(broken, "true", 1000)).rejects.toThrow(
      msg.spawnFailed("spawn /nonexistent/shell ENOENT"),
    );
  });
});
