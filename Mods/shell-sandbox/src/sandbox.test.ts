import { mkdtemp, readFile, realpath, rm } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUN_TIMEOUT_EXIT_CODE } from "./limits.ts";
import { hostAddresses, pastaStarter } from "./network.ts";
import { type Runner, runCommand } from "./run.ts";
import { bwrapArgv, makeRunner, SANDBOX_PATH, unreadableEntries } from "./sandbox.ts";
import { processesAfterDeath, uniqueSleep } from "./testing/proc.ts";

// These run the real bubblewrap (Debian's bubblewrap, listed in apt-packages.txt), as root here.
let ws: string;
let boxed: Runner;
let offline: Runner;

beforeAll(async () => {
  ws = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-bwrap-")));
  process.env.SHELL_SANDBOX_TEST_PASSED = "passed-on";
  process.env.SHELL_SANDBOX_TEST_TOKEN = "must-not-leak";
  boxed = makeRunner("bwrap", {
    workspace: ws,
    pass: ["SHELL_SANDBOX_TEST_PASSED", "SHELL_SANDBOX_TEST_UNSET"],
  });
  offline = makeRunner("bwrap", { workspace: ws, network: "none" });
});

afterAll(async () => {
  delete process.env.SHELL_SANDBOX_TEST_PASSED;
  delete process.env.SHELL_SANDBOX_TEST_TOKEN;
  boxed.dispose?.();
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

const REPLY = "HOST-LISTENER";
/** A TCP listener on the host that answers REPLY to whoever connects. */
async function hostListener(host: string): Promise<{ server: Server; port: number }> {
  const server = createServer((s) => s.end(REPLY));
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  return { server, port: typeof address === "object" && address ? address.port : 0 };
}

/** The host's own IPv4 address on a non-loopback interface, if it has one. */
const hostAddress = (): string | undefined =>
  Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === "IPv4" && !a.internal)?.address;

// bash's /dev/tcp: prints what the peer sent, or the error.
const connect = (host: string, port: number) =>
  `(exec 3<>/dev/tcp/${host}/${port} && timeout 5 cat <&3) 2>&1 | tr -d '\\n'; echo`;

describe("bwrap mode's network", () => {
  it("cannot reach a listener on the host's loopback", async () => {
    const { server, port } = await hostListener("127.0.0.1");
    try {
      // The same connection from the host gets through: the listener is really there.
      const plain = await runCommand(
        makeRunner("none", { workspace: ws }),
        connect("127.0.0.1", port),
        20_000,
      );
      expect(plain.stdout).toBe(`${REPLY}\n`);
      const r = await run(`${connect("127.0.0.1", port)}; ${connect("localhost", port)}`);
      expect(r.stdout).not.toContain(REPLY);
      expect(r.stdout).toContain("Connection refused");
    } finally {
      server.close();
    }
  });

  it("cannot reach a listener on the host's own address: inside, that address is the sandbox's", async () => {
    const address = hostAddress();
    expect(address, "this machine has a non-loopback IPv4 address").toBeDefined();
    const { server, port } = await hostListener(address ?? "");
    try {
      const r = await run(connect(address ?? "", port));
      expect(r.stdout).not.toContain(REPLY);
      expect(r.stdout).toContain("Connection refused");
    } finally {
      server.close();
    }
  });

  it("cannot reach the host's other addresses: each gets an unreachable route the command cannot remove", async () => {
    // 198.51.100.7 (a documentation address) stands for a host address on a second interface
    // (docker0, a VPN): with its route in place, no packet leaves for it.
    const other = "198.51.100.7";
    const pasta = pastaStarter("pasta", () => [...hostAddresses(), other]);
    const runner: Runner = { ...boxed, bwrap: { network: pasta.start } };
    try {
      const r = await runCommand(
        runner,
        `ip route show type unreachable; ${connect(other, 80)}; ip route del unreachable ${other} 2>&1`,
        20_000,
      );
      expect(r.stdout).toContain(`unreachable ${other} \n`);
      for (const a of hostAddresses().filter((x) => x.includes(".")))
        expect(r.stdout).toContain(`unreachable ${a} `);
      expect(r.stdout).toContain(`/dev/tcp/${other}/80: No route to host`);
      expect(r.stdout).toContain("RTNETLINK answers: Operation not permitted");
    } finally {
      pasta.dispose();
    }
  });

  it("has its own working loopback", async () => {
    const r = await run(
      `python3 -c "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); s.listen(); ` +
        `c=socket.create_connection(s.getsockname()); a,_=s.accept(); c.send(b'own loopback'); print(a.recv(64).decode())"`,
    );
    expect(r).toMatchObject({ exit_code: 0, stdout: "own loopback\n" });
  });

  it("has an interface and a default route out through pasta", async () => {
    // /proc/net/route: a default route has destination 00000000.
    const r = await run(
      "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | sort | tr '\\n' ' '; echo; awk '$2 == \"00000000\" {print \"default via\", $1}' /proc/net/route",
    );
    const [ifaces, route] = r.stdout.split("\n");
    expect(ifaces?.split(" ").filter((i) => i !== "" && i !== "lo").length).toBeGreaterThan(0);
    expect(route).toMatch(/^default via \S+$/);
  });

  it("with --network none has only a loopback and no route out", async () => {
    const r = await runCommand(
      offline,
      `tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' ' | tr '\\n' ' '; echo; tail -n +2 /proc/net/route | wc -l; ${connect("192.0.2.1", 80)}`,
      20_000,
    );
    expect(r.stdout).toBe(
      "lo \n0\n/bin/bash: connect: Network is unreachable/bin/bash: line 1: /dev/tcp/192.0.2.1/80: Network is unreachable\n",
    );
  });
});

describe("bwrap mode's processes", () => {
  it("ends setsid and nohup background jobs when run returns", async () => {
    const s = uniqueSleep();
    const r = await run(
      `setsid sleep ${s} > /dev/null 2>&1 & nohup sleep ${s} > /dev/null 2>&1 & echo started`,
    );
    expect(r).toMatchObject({ exit_code: 0, stdout: "started\n", timed_out: false });
    expect(await processesAfterDeath(["sleep", s])).toEqual([]);
  });

  it("ends them at the timeout too", async () => {
    const s = uniqueSleep();
    const r = await run(
      `setsid sleep ${s} > /dev/null 2>&1 & nohup sleep ${s} > /dev/null 2>&1 & sleep ${s}`,
      1500,
    );
    expect(r).toMatchObject({ exit_code: RUN_TIMEOUT_EXIT_CODE, timed_out: true });
    expect(await processesAfterDeath(["sleep", s])).toEqual([]);
  });
});
