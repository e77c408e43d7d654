// How `run` starts its shell: plainly (in the container, the container is the boundary), or wrapped
// in bubblewrap for hosts without Docker. What bwrap mode does and does not isolate is listed in
// docs/mods/shell-sandbox.md; keep the two in step.
import { existsSync, lstatSync, readdirSync, readlinkSync } from "node:fs";
import path from "node:path";
import { pastaStarter } from "./network.ts";
import type { Runner } from "./run.ts";

export type SandboxMode = "none" | "bwrap";
/** bwrap's network: its own namespace reaching out through pasta, or no network at all. */
export type NetworkMode = "pasta" | "none";

/** The shell `run` uses: bash where there is one (agents write bash), else POSIX sh. */
export function defaultShell(): string {
  return existsSync("/bin/bash") ? "/bin/bash" : "/bin/sh";
}

// Top-level system directories that merged-/usr systems keep as symlinks into /usr.
const SYSTEM_LINKS = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/** PATH inside bwrap, where only the system directories exist. */
export const SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/** What the command environment is built from. */
export interface EnvOptions {
  workspace: string;
  /** PATH the commands get. */
  path: string;
  /** Names of the server's variables to pass on as they are (--env NAME). */
  pass?: readonly string[];
  /** The server's environment, where the passed names are read. */
  from?: NodeJS.ProcessEnv;
}

/**
 * The environment every command gets, in both modes: PATH, HOME (the workspace, so tools' dotfiles
 * stay in it and persist), LANG and TERM, plus only the variables named with --env. Never the
 * server's own environment: it may hold tokens.
 */
export function commandEnv(opts: EnvOptions): Record<string, string> {
  const env: Record<string, string> = {
    PATH: opts.path,
    HOME: opts.workspace,
    LANG: "C.UTF-8",
    TERM: "dumb",
  };
  for (const name of opts.pass ?? []) {
    const value = opts.from?.[name];
    if (value !== undefined) env[name] = value;
  }
  return env;
}

/**
 * Entries under `dir` that a user without privileges could not read (not world-readable, or a
 * directory not world-searchable), without descending into them: /etc/shadow, /etc/ssl/private…
 * In bwrap they are covered up, since root in the sandbox owns them and reads them even without
 * capabilities.
 */
export function unreadableEntries(dir: string): string[] {
  const found: string[] = [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return found;
  }
  for (const name of names) {
    const p = path.join(dir, name);
    let st: ReturnType<typeof lstatSync>;
    try {
      st = lstatSync(p);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) continue; // a link is resolved inside, where its target is covered
    if (st.isDirectory()) {
      if ((st.mode & 0o005) !== 0o005) found.push(p);
      else found.push(...unreadableEntries(p));
    } else if ((st.mode & 0o004) === 0) {
      found.push(p);
    }
  }
  return found;
}

let hiddenCache: string[] | undefined;
/** The entries of /etc that bwrap covers up, looked up once per process. */
export function hiddenSystemEntries(): string[] {
  hiddenCache ??= unreadableEntries("/etc");
  return hiddenCache;
}

/** Options of the bwrap argv. */
export interface BwrapOptions {
  /** Paths to cover up (an empty read-only directory or /dev/null in their place). */
  hidden?: readonly string[];
  bwrap?: string;
  /** Mount a fresh /proc (default true; the file worker goes without). */
  proc?: boolean;
  /** A network namespace of its own (default true; the file worker, which runs no agent code, keeps the host's). */
  ownNetwork?: boolean;
}

/**
 * The bwrap argv up to the command: /usr and /etc read-only (minus what only root may read), the
 * workspace read-write at its own path, a private /tmp, /proc and /dev, every namespace new (the
 * network too), no capabilities, and the sandbox dying with the server.
 */
export function bwrapMounts(workspace: string, opts: BwrapOptions = {}): string[] {
  const argv = [
    opts.bwrap ?? "bwrap",
    "--die-with-parent",
    "--new-session",
    "--unshare-all",
    "--cap-drop",
    "ALL",
  ];
  argv.push("--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc");
  for (const p of opts.hidden ?? []) {
    let dir = false;
    try {
      dir = lstatSync(p).isDirectory();
    } catch {
      continue;
    }
    if (dir) argv.push("--tmpfs", p, "--remount-ro", p);
    else argv.push("--ro-bind", "/dev/null", p);
  }
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
  if (opts.proc ?? true) argv.push("--proc", "/proc");
  argv.push("--dev", "/dev", "--tmpfs", "/tmp", "--bind", workspace, workspace);
  return argv;
}

/** What a command's bwrap reports and waits for. */
export interface CommandOptions extends BwrapOptions {
  /** The fd bwrap writes its JSON status to: the sandbox's pid at start, the shell's exit status at its end. */
  statusFd?: number;
  /** The fd bwrap waits on (one byte) before it starts the shell: the network is set up meanwhile. */
  blockFd?: number;
}

/** The bwrap argv (up to and including the shell's "-c") that runs a command in the workspace. */
export function bwrapArgv(workspace: string, shell: string, opts: CommandOptions = {}): string[] {
  const argv = bwrapMounts(workspace, opts);
  if (opts.statusFd !== undefined) argv.push("--json-status-fd", String(opts.statusFd));
  if (opts.blockFd !== undefined) argv.push("--block-fd", String(opts.blockFd));
  return [...argv, "--chdir", workspace, "--", shell, "-c"];
}

/** Where the file worker's code lives in its sandbox (its three files, read-only). */
const WORKER_DIR = "/opt/yui-fs";
const WORKER_FILES = ["worker.mjs", "ops.mjs", "frames.mjs"];

/**
 * The bwrap argv that starts the file worker (fs/worker.mjs): the same view of the host's files as a
 * command (without /proc), plus its own code and the node binary read-only. It keeps the host's
 * network namespace: it runs only its own code, which opens no socket, and it is spared bwrap's
 * occasional loopback set-up failure (see run.ts).
 */
export function workerArgv(workspace: string, opts: BwrapOptions & { node?: string } = {}): string[] {
  const node = opts.node ?? process.execPath;
  const argv = bwrapMounts(workspace, { ...opts, proc: false, ownNetwork: false });
  const src = path.join(import.meta.dirname, "fs");
  for (const f of WORKER_FILES) argv.push("--ro-bind", path.join(src, f), `${WORKER_DIR}/${f}`);
  // A node outside /usr (nvm, a tarball in /opt) is bound at its own path; its libraries are the system's.
  if (!node.startsWith("/usr/")) argv.push("--ro-bind", node, node);
  argv.push("--chdir", workspace, "--", node, `${WORKER_DIR}/worker.mjs`);
  return argv;
}

/** How commands are run: the mode, and what of the server's environment they get. */
export interface RunnerOptions {
  workspace: string;
  shell?: string;
  /** --env NAME: the server's variables passed on. */
  pass?: readonly string[];
  from?: NodeJS.ProcessEnv;
  /** bwrap: the sandbox's own network through pasta (default), or none. */
  network?: NetworkMode;
}

/** The Runner for a mode: bwrap wraps the shell; "none" runs it directly, as the server's user. */
export function makeRunner(mode: SandboxMode, opts: RunnerOptions): Runner {
  const { workspace, shell = defaultShell(), pass = [], from = process.env, network = "pasta" } = opts;
  if (mode === "bwrap") {
    const pasta = network === "pasta" ? pastaStarter() : undefined;
    return {
      // Status on fd 3 (the pid for pasta, then the shell's exit, which ends the sandbox); with a
      // network, the shell waits on fd 0 until pasta has configured the namespace.
      argv: bwrapArgv(workspace, shell, {
        hidden: hiddenSystemEntries(),
        statusFd: 3,
        ...(pasta ? { blockFd: 0 } : {}),
      }),
      cwd: workspace,
      // bwrap passes its own environment on, so the command's environment is the one bwrap gets.
      env: commandEnv({ workspace, path: SANDBOX_PATH, pass, from }),
      live: new Set(),
      bwrap: pasta ? { network: pasta.start } : {},
      dispose: () => pasta?.dispose(),
    };
  }
  const env = commandEnv({ workspace, path: from.PATH ?? SANDBOX_PATH, pass, from });
  return { argv: [shell, "-c"], cwd: workspace, env, live: new Set() };
}
