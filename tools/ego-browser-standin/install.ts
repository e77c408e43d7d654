/** Puts the stand-in ego-browser where the host looks for it, for tests: ~/.local/bin of a temp HOME, or a PATH dir. */
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

/** The guide the stand-in's `skill` prints. */
export const STANDIN_GUIDE_FILE = fileURLToPath(new URL("./guide.md", import.meta.url));

/** The stand-in program itself. */
export const STANDIN_PROGRAM = fileURLToPath(new URL("./ego-browser.mjs", import.meta.url));

/** One entry of the stand-in's JSON-lines log. */
export interface StandinEvent {
  event: "received" | "script-started" | "taskSpace" | "screenshot" | "exit" | "script-exit" | "skill";
  pid: number;
  t: number;
  name?: string;
  script?: string;
  argv?: string[];
  code?: number;
  path?: string;
  mode?: string;
}

/** A temp sandbox holding the stand-in: the environment to hand the host, and the stand-in's log. */
export interface Standin {
  /** The sandbox root: HOME, the PATH dir, the temp dir for screenshot folders and the stand-in's own files. */
  root: string;
  home: string;
  /** A temp directory of this sandbox alone (screenshot folders, the stand-in's script files). */
  tmp: string;
  /** Where the executable went. */
  cli: string;
  env: NodeJS.ProcessEnv;
  events(): Promise<StandinEvent[]>;
  remove(): Promise<void>;
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Creates a sandbox with the stand-in installed at ~/.local/bin/ego-browser ("home"), in a PATH dir ("path"), or
 * nowhere ("none"). env carries HOME, PATH, TMPDIR and the stand-in's switches.
 */
export async function installStandin(
  opts: { where?: "home" | "path" | "none"; env?: Record<string, string> } = {},
): Promise<Standin> {
  const root = await mkdtemp(join(tmpdir(), "yui-standin-test-"));
  const home = join(root, "home");
  const bin = join(root, "bin");
  const tmp = join(root, "tmp");
  await Promise.all([mkdir(join(home, ".local", "bin"), { recursive: true }), mkdir(bin), mkdir(tmp)]);
  const where = opts.where ?? "home";
  const cli = where === "path" ? join(bin, "ego-browser") : join(home, ".local", "bin", "ego-browser");
  if (where !== "none") {
    // A wrapper with absolute paths: the sandbox's PATH need not contain node.
    await writeFile(
      cli,
      `#!/bin/sh\nexec ${shellQuote(process.execPath)} ${shellQuote(STANDIN_PROGRAM)} "$@"\n`,
    );
    await chmod(cli, 0o755);
  }
  const log = join(root, "standin.log");
  const env: NodeJS.ProcessEnv = {
    HOME: home,
    PATH: bin,
    TMPDIR: tmp,
    EGO_STANDIN_LOG: log,
    ...opts.env,
  };
  return {
    root,
    home,
    tmp,
    cli,
    env,
    async events() {
      const text = await readFile(log, "utf8").catch(() => "");
      return text
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as StandinEvent);
    },
    remove: () => rm(root, { recursive: true, force: true }),
  };
}
