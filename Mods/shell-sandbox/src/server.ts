// Starts the whole mod from a Config: opens the workspace, picks the runner, serves MCP through the
// kit on 127.0.0.1 and, in the container, relays the container's interface to it.
import { serveMcp } from "@yui/mod-kit";
import type { Config } from "./config.ts";
import { FileWorker } from "./fs/worker.ts";
import { defaultRoute, type Relay, startRelay } from "./relay.ts";
import { killAllRuns, runCommand } from "./run.ts";
import {
  commandEnv,
  hiddenSystemEntries,
  makeRunner,
  type NetworkMode,
  SANDBOX_PATH,
  workerArgv,
} from "./sandbox.ts";
import { buildServer, MOD_NAME, MOD_VERSION } from "./tools.ts";
import { Workspace } from "./workspace.ts";

/** A running shell-sandbox mod. */
export interface SandboxServer {
  /** The MCP endpoint on 127.0.0.1. */
  url: string;
  port: number;
  workspace: Workspace;
  close(): Promise<void>;
}

/**
 * Where the relay listens in --container mode and whom it lets through: by default the address of
 * the container's default-route interface, and only the gateway; tests keep it on loopback.
 */
export interface StartOptions {
  relayHost?: string;
  relayPeer?: (address: string) => boolean;
}

/**
 * Why bubblewrap (with its network, unless "none") cannot make a sandbox here, or undefined when it
 * can: it runs `true` in one, as `run` would.
 */
export async function bwrapProblem(
  workspace: string,
  network: NetworkMode = "none",
): Promise<string | undefined> {
  if (process.platform !== "linux") return `bubblewrap needs Linux, this is ${process.platform}`;
  const runner = makeRunner("bwrap", { workspace, network });
  try {
    const r = await runCommand(runner, "true", 30_000);
    if (r.exit_code === 0) return undefined;
    return r.stderr.trim() || `exit status ${r.exit_code}`;
  } catch (e) {
    const why = (e as Error).message;
    if (/ENOENT/.test(why) && !/pasta/.test(why)) {
      return "bwrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)";
    }
    return why;
  } finally {
    runner.dispose?.();
  }
}

/** The start-up refusal when bwrap was asked for (or is the default) and cannot work. */
export const bwrapRefusal = (why: string, explicit: boolean): string =>
  `${explicit ? "--sandbox bwrap" : "the default sandbox, bwrap,"} cannot work here, and commands would run ` +
  `with no boundary: fix that, or start with --sandbox none to accept it. Why: ${why}`;

/** Starts the mod; throws an Error with a printable message when the workspace, port or sandbox fails. */
export async function startSandboxServer(cfg: Config, opts: StartOptions = {}): Promise<SandboxServer> {
  let workspace = await Workspace.open(cfg.workspace);
  let worker: FileWorker | undefined;
  if (cfg.sandbox === "bwrap") {
    const why = await bwrapProblem(workspace.realRoot, cfg.network ?? "pasta");
    if (why !== undefined) throw new Error(bwrapRefusal(why, cfg.sandboxExplicit ?? true));
    // The file tools work on the sandbox's side of the boundary too (see fs/worker.mjs).
    const root = workspace.realRoot;
    worker = new FileWorker(
      workerArgv(root, { hidden: hiddenSystemEntries() }),
      commandEnv({ workspace: root, path: SANDBOX_PATH }),
      root,
    );
    workspace = await Workspace.open(cfg.workspace, worker);
    try {
      // Fails fast when the worker cannot start, instead of at the agent's first file tool.
      await worker.realpath(root);
    } catch (e) {
      worker.close();
      throw new Error(`the file tools' worker cannot start in bubblewrap: ${(e as Error).message}`);
    }
  }
  const runner = makeRunner(cfg.sandbox, {
    workspace: workspace.realRoot,
    pass: cfg.env,
    network: cfg.network,
  });
  const ctx = { workspace, runner };
  let served: Awaited<ReturnType<typeof serveMcp>>;
  try {
    served = await serveMcp({
      name: MOD_NAME,
      version: MOD_VERSION,
      // In the container the relay owns the published port; the server takes any free loopback one.
      port: cfg.container ? 0 : cfg.port,
      build: () => buildServer(ctx),
    });
  } catch (e) {
    worker?.close();
    runner.dispose?.();
    throw e;
  }
  let relay: Relay | undefined;
  if (cfg.container) {
    try {
      let host = opts.relayHost;
      let peer = opts.relayPeer;
      if (host === undefined) {
        const route = defaultRoute();
        host = route.address;
        peer ??= (address) => address === route.gateway;
      }
      relay = await startRelay(host, cfg.port, served.port, peer);
    } catch (e) {
      await served.close();
      worker?.close();
      runner.dispose?.();
      throw e;
    }
  }
  return {
    url: served.url,
    port: relay?.port ?? served.port,
    workspace,
    async close() {
      await killAllRuns(runner);
      runner.dispose?.();
      worker?.close();
      await relay?.close();
      await served.close();
    },
  };
}
