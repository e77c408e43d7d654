// Command line and environment of the shell-sandbox mod, parsed without side effects so every rule
// (where the workspace comes from, when --container is allowed) is tested directly.
import { existsSync } from "node:fs";
import { parsePort } from "@yui/mod-kit";
import type { SandboxMode } from "./sandbox.ts";

export const DEFAULT_PORT = 9001;
/** The bind mount's path inside the container. */
export const CONTAINER_WORKSPACE = "/workspace";
/** Names the workspace when --workspace is not given (outside a container there is no default). */
export const WORKSPACE_ENV = "SHELL_SANDBOX_WORKSPACE";

export interface Config {
  workspace: string;
  port: number;
  sandbox: SandboxMode;
  /** Inside a container: also listen on the container's own interfaces (published to 127.0.0.1). */
  container: boolean;
}

export const USAGE = `usage: shell-sandbox --workspace DIR [--port N] [--sandbox none|bwrap]
       shell-sandbox --container [--workspace DIR] [--port N]   (inside the image)
  --workspace DIR     the only directory the tools work in (or set ${WORKSPACE_ENV});
                      required outside a container, default ${CONTAINER_WORKSPACE} with --container
  --port N            port on 127.0.0.1 (default ${DEFAULT_PORT}; 0 picks a free one)
  --sandbox MODE      none (default): run starts bash directly; bwrap: run starts it in bubblewrap
  --container         running in the container: listen on the container's interfaces too`;

/** True when this process runs inside a Docker or Podman container. */
export function inContainer(): boolean {
  return existsSync("/.dockerenv") || existsSync("/run/.containerenv");
}

function flagValue(argv: string[], name: string): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === name) {
      value = argv[i + 1];
      if (value === undefined || value.startsWith("--")) throw new Error(`${name} needs a value`);
      i++;
    } else if (arg.startsWith(`${name}=`)) {
      value = arg.slice(name.length + 1);
    }
  }
  return value;
}

const KNOWN = ["--workspace", "--port", "--sandbox", "--container", "--help"];

/** Parses argv and env into a Config; throws an Error whose message is fit to print before USAGE. */
export function parseConfig(
  argv: string[],
  env: NodeJS.ProcessEnv,
  isContainer: () => boolean = inContainer,
): Config {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const name = arg.split("=")[0] ?? "";
    if (!KNOWN.includes(name)) throw new Error(`unknown argument '${arg}'`);
    if (!arg.includes("=") && name !== "--container" && name !== "--help") i++;
  }
  const container = argv.includes("--container");
  if (container && !isContainer()) {
    throw new Error("--container is only for the image: this process is not in a container");
  }
  const sandbox = flagValue(argv, "--sandbox") ?? "none";
  if (sandbox !== "none" && sandbox !== "bwrap") {
    throw new Error(`--sandbox must be none or bwrap, got '${sandbox}'`);
  }
  const workspace =
    flagValue(argv, "--workspace") ??
    (env[WORKSPACE_ENV] || undefined) ??
    (container ? CONTAINER_WORKSPACE : undefined);
  // No silent default outside a container: serving the current directory (often a home) by accident
  // would hand the agent far more than the operator meant to.
  if (workspace === undefined) throw new Error(`no workspace: pass --workspace DIR or set ${WORKSPACE_ENV}`);
  return { workspace, port: parsePort(argv, DEFAULT_PORT), sandbox, container };
}
