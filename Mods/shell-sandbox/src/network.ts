// The bwrap sandbox's network: bwrap gives every command a network namespace of its own (only a
// loopback), and pasta (Debian's passt package) attaches a user-mode network stack to it, so commands
// reach out (package managers) through ordinary sockets of the server's user, while the host's
// loopback and the host's own address stay out of reach: no gateway mapping to the host
// (--no-map-gw), no port forwarding either way, and the namespace takes over the host's address, so
// connecting to it stays inside. The host's other addresses (a docker0 bridge, a VPN, a second
// interface) get an "unreachable" route in the namespace before the shell starts, which the command,
// without CAP_NET_ADMIN, cannot remove. What this does and does not cut is in
// docs/mods/shell-sandbox.md.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { networkInterfaces, tmpdir } from "node:os";
import path from "node:path";

/** How long pasta may take to configure a namespace before the command fails. */
const PASTA_START_TIMEOUT_MS = 15_000;

/** A running user-mode network for one sandbox. */
export interface SandboxNetwork {
  stop(): void;
}

/** Starts the network of the sandbox whose process is `pid`; resolves once the namespace is configured. */
export type NetworkStarter = (pid: number) => Promise<SandboxNetwork>;

/** pasta's arguments for the namespace of `pid`: configured, no forwarding, no gateway mapped to the host. */
export function pastaArgs(pid: number, pidFile: string): string[] {
  const user = `${process.getuid?.() ?? 0}:${process.getgid?.() ?? 0}`;
  return [
    "--config-net",
    "--quiet",
    // pasta would switch from root to "nobody", who may not open the sandbox's namespaces.
    ...["--runas", user],
    ...["--pid", pidFile],
    // No port forwarding host→sandbox, and none sandbox→host: "auto" would forward the sandbox's
    // loopback to every port bound on the host's loopback.
    ...["--tcp-ports", "none", "--udp-ports", "none", "--tcp-ns", "none", "--udp-ns", "none"],
    // The gateway address is the real gateway, not an alias of the host's loopback.
    "--no-map-gw",
    String(pid),
  ];
}

/** pasta's stderr without its complaints about a missing syslog. */
const pastaErrors = (stderr: string): string =>
  stderr
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("Failed to send"))
    .join("; ");

/**
 * Every address of the host outside its loopback. The one pasta copies into the namespace is local
 * there (the local routing table wins over an unreachable route); every other one is cut off.
 */
export function hostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .flatMap((a) => (a && !a.internal ? [a.address] : []));
}

/** Adds an "unreachable" route for each address inside the network namespace of `pid` (ip, through nsenter). */
function blockAddresses(pid: number, addresses: readonly string[]): Promise<void> {
  if (addresses.length === 0) return Promise.resolve();
  // Root may enter the namespace directly; another user joins the sandbox's user namespace first.
  const user = process.getuid?.() === 0 ? [] : ["--user", "--preserve-credentials"];
  return new Promise((resolve, reject) => {
    const child = spawn("nsenter", ["--target", String(pid), ...user, "--net", "ip", "-batch", "-"], {
      stdio: ["pipe", "ignore", "pipe"],
      env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin" },
    });
    let stderr = "";
    child.stderr?.on("data", (c: Buffer) => {
      stderr = (stderr + c).slice(-2000);
    });
    child.on("error", (e) => reject(new Error(`cannot cut the host's other addresses off: ${e.message}`)));
    child.on("exit", (code) =>
      code === 0
        ? resolve()
        : reject(
            new Error(`cannot cut the host's other addresses off: ${stderr.trim() || `exit status ${code}`}`),
          ),
    );
    child.stdin?.on("error", () => {});
    child.stdin?.end(addresses.map((a) => `route add unreachable ${a}\n`).join(""));
  });
}

/**
 * A NetworkStarter that runs pasta: it configures the namespace, then (as a daemon) carries its
 * traffic until stop() kills it; the host's addresses (`blocked`, default hostAddresses()) are made
 * unreachable inside first. `dir` holds the daemons' pid files.
 */
export function pastaStarter(
  pasta = "pasta",
  blocked: () => string[] = hostAddresses,
): { start: NetworkStarter; dispose(): void } {
  let dir: string | undefined;
  let n = 0;
  return {
    start: (pid) =>
      new Promise((resolve, reject) => {
        dir ??= mkdtempSync(path.join(tmpdir(), "shell-sandbox-pasta-"));
        const pidFile = path.join(dir, `${pid}-${n++}.pid`);
        const child = spawn(pasta, pastaArgs(pid, pidFile), {
          stdio: ["ignore", "ignore", "pipe"],
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        });
        let stderr = "";
        child.stderr?.on("data", (c: Buffer) => {
          stderr = (stderr + c).slice(-4000);
        });
        // pasta returns within a fraction of a second; one that hangs must not hang run with it.
        const timer = setTimeout(() => child.kill("SIGKILL"), PASTA_START_TIMEOUT_MS);
        child.on("exit", () => clearTimeout(timer));
        child.on("error", (e) =>
          reject(
            new Error(
              (e as NodeJS.ErrnoException).code === "ENOENT"
                ? "pasta is not installed (Debian/Ubuntu: apt-get install passt)"
                : e.message,
            ),
          ),
        );
        // Without --foreground pasta returns once the namespace is set up, leaving its daemon behind.
        child.on("exit", (code, signal) => {
          if (code !== 0) {
            reject(new Error(`pasta failed (${signal ?? `exit status ${code}`}): ${pastaErrors(stderr)}`));
            return;
          }
          let daemon = 0;
          try {
            daemon = Number(readFileSync(pidFile, "utf8").trim());
            rmSync(pidFile, { force: true });
          } catch (e) {
            reject(new Error(`pasta left no pid file: ${(e as Error).message}`));
            return;
          }
          const network = {
            stop() {
              try {
                if (daemon > 0) process.kill(daemon, "SIGKILL");
              } catch {
                // Already gone.
              }
            },
          };
          blockAddresses(pid, blocked()).then(
            () => resolve(network),
            (e: Error) => {
              network.stop();
              reject(e);
            },
          );
        });
      }),
    dispose() {
      if (dir) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}
