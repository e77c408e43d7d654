// Command line and environment of the shell-sandbox mod, parsed without side effects so every rule
// (where the workspace comes from, when --container is allowed) is tested directly.
import { existsSync } from "node:fs";
import { parsePort, quoteInput } from "@yui/mod-kit";
import type { NetworkMode, SandboxMode } from "./sandbox.ts";

export const DEFAULT_PORT = 9001;
/** The bind mount's path inside the container. */
export const CONTAINER_WORKSPACE = "/workspace";
/** Names the workspace when --workspace is not given (outside a container there is no default). */
export const WORKSPACE_ENV = "SHELL_SANDBOX_WORKSPACE";

export interface Config {
  workspace: string;
  port: number;
  sandbox: SandboxMode;
  /** False when --sandbox was not given: the mode is the default (bwrap outside a container). Default true. */
  sandboxExplicit?: boolean;
  /** bwrap mode: the sandbox's own network through pasta (default), or none at all. */
  network?: NetworkMode;
  /** Names of the server's environment variables that commands also get (--env NAME, repeatable). */
  env?: string[];
  /** Inside a container: also listen on the container's own interfaces (published to 127.0.0.1). */
  container: boolean;
}

export const USAGE = `usage: shell-sandbox --workspace DIR [--port N] [--sandbox bwrap|none] [--network pasta|none] [--env NAME]...
       shell-sandbox --container [--workspace DIR] [--port N] [--env NAME]...   (inside the image)
  --workspace DIR     the only directory the tools work in (or set ${WORKSPACE_ENV});
                      required outside a container, default ${CONTAINER_WORKSPACE} with --container
  --port N            port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 picks a free one)
  --sandbox MODE      bwrap (default outside a container): commands and file tools run in bubblewrap;
                      none: bash runs directly as this user, with no boundary (a warning at start)
  --network MODE      bwrap only. pasta (default): the sandbox's own network namespace with outbound
                      access through pasta, the host's loopback and addresses unreachable; none: no network
  --env NAME          also pass this variable of the server's environment to commands (repeatable);
                      otherwise they get only PATH, HOME (the workspace), LANG and TERM
  --container         running in the container: listen on the container's interfaces too`;

/** The warning printed at start in --sandbox none outside a container. */
export const NO_SANDBOX_WARNING =
  "warning: --sandbox none: commands run directly as this user, with no boundary: they can read and change " +
  "whatever this user can, reach the network and the host's loopback services (the other mods), and start " +
  "processes that are ended when run returns only as far as they can be found (docs/mods/shell-sandbox.md)";

/** True when this process runs inside a Docker or Podman container. */
export function inContainer(): boolean {
  return existsSync("/.dockerenv") || existsSync("/run/.containerenv");
}

/** Every value given for a flag, in order (`--name value` or `--name=value`). */
function flagValues(argv: string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === name) {
      const value = argv[i + 1];
      if (value === undefined || value.startsWith("--")) throw new Error(`${name} needs a value`);
      values.push(value);
      i++;
    } else if (arg.startsWith(`${name}=`)) {
      values.push(arg.slice(name.length + 1));
    }
  }
  return values;
}

/** The last value given for a flag (a later one overrides an earlier one). */
const flagValue = (argv: string[], name: string): string | undefined => flagValues(argv, name).at(-1);

const KNOWN = ["--workspace", "--port", "--sandbox", "--network", "--env", "--container", "--help"];
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Parses argv and env into a Config; throws an Error whose message is fit to print before USAGE. */
export function parseConfig(
  argv: string[],
  env: NodeJS.ProcessEnv,
  isContainer: () => boolean = inContainer,
): Config {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const name = arg.split("=")[0] ?? "";
    if (!KNOWN.includes(name)) throw new Error(`unknown argument '${quoteInput(arg)}'`);
    if (!arg.includes("=") && name !== "--container" && name !== "--help") i++;
  }
  const container = argv.includes("--container");
  if (container && !isContainer()) {
    throw new Error("--container is only for the image: this process is not in a container");
  }
  const given = flagValue(argv, "--sandbox");
  // Outside a container bwrap is the default (the server refuses to start when it cannot work);
  // in the container, the container is the boundary.
  const sandbox = given ?? (container ? "none" : "bwrap");
  if (sandbox !== "none" && sandbox !== "bwrap") {
    throw new Error(`--sandbox must be none or bwrap, got '${quoteInput(sandbox)}'`);
  }
  const network = flagValue(argv, "--network") ?? "pasta";
  if (network !== "pasta" && network !== "none") {
    throw new Error(`--network must be pasta or none, got '${quoteInput(network)}'`);
  }
  if (flagValue(argv, "--network") !== undefined && sandbox !== "bwrap") {
    throw new Error(
      "--network applies to --sandbox bwrap only (without bwrap, commands share the host's network)",
    );
  }
  const passed = flagValues(argv, "--env");
  for (const name of passed) {
    if (!ENV_NAME.test(name)) throw new Error(`--env takes a variable name, got '${quoteInput(name)}'`);
  }
  const workspace =
    flagValue(argv, "--workspace") ??
    (env[WORKSPACE_ENV] || undefined) ??
    (container ? CONTAINER_WORKSPACE : undefined);
  // No silent default outside a container: serving the current directory (often a home) by accident
  // would hand the agent far more than the operator meant to.
  if (workspace === undefined) throw new Error(`no workspace: pass --workspace DIR or set ${WORKSPACE_ENV}`);
  return {
    workspace,
    port: parsePort(argv, DEFAULT_PORT),
    sandbox,
    sandboxExplicit: given !== undefined,
    network,
    env: [...new Set(passed)],
    container,
  };
}
