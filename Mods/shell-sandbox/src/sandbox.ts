// How `run` starts its shell: plainly (in the container, the container is the boundary), or wrapped
// in bubblewrap for hosts without Docker. What bwrap mode does and does not isolate is listed in
// docs/mods/shell-sandbox.md; keep the two in step.
import { existsSync, lstatSync, readlinkSync } from "node:fs";
import type { Runner } from "./run.ts";

export type SandboxMode = "none" | "bwrap";

/** The shell `run` uses: bash where there is one (agents write bash), else POSIX sh. */
export function defaultShell(): string {
  return existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
}

// Top-level system directories that merged-/usr systems keep as symlinks into /usr.
const SYSTEM_LINKS = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/** The environment inside bwrap: only what a shell needs, none of the operator's variables (tokens). */
export const BWRAP_ENV: Readonly<Record<string, string>> = {
  PATH: "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
  HOME: "/tmp",
  LANG: "C.UTF-8",
  TERM: "dumb",
};

/**
 * The bwrap argv (up to and including the shell's "-c") that runs a command with /usr and /etc
 * read-only, the workspace read-write at its own path, a private /tmp, /proc and /dev, new
 * namespaces except the network, no capabilities, and the sandbox dying with the server.
 */
export function bwrapArgv(workspace: string, shell: string, bwrap = "bwrap"): string[] {
  const argv = [
    bwrap,
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    "--share-net",
    "--cap-drop",
    "ALL",
    "--clearenv",
  ];
  for (const [k, v] of Object.entries(BWRAP_ENV)) argv.push("--setenv", k, v);
  argv.push("--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc");
  for (const name of SYSTEM_LINKS) {
    const p = `/${name}`;
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) argv.push("--symlink", readlinkSync(p), p);
    else if (st.isDirectory()) argv.push("--ro-bind", p, p);
  }
  argv.push(
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--tmpfs",
    "/tmp",
    "--bind",
    workspace,
    workspace,
    "--chdir",
    workspace,
    "--",
    shell,
    "-c",
  );
  return argv;
}

/** The Runner for a mode: bwrap wraps the shell; "none" runs it directly with the server's environment. */
export function makeRunner(mode: SandboxMode, workspace: string, shell = defaultShell()): Runner {
  if (mode === "bwrap") {
    return {
      argv: bwrapArgv(workspace, shell),
      cwd: workspace,
      // bwrap's own environment, only to be found on PATH: inside, --clearenv leaves BWRAP_ENV.
      env: { PATH: process.env.PATH ?? BWRAP_ENV.PATH },
      live: new Set(),
    };
  }
  return { argv: [shell, "-c"], cwd: workspace, env: process.env, live: new Set() };
}
