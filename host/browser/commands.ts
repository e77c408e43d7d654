/**
 * The host's browser commands (spec: the Tauri commands browser_run and browser_guide): find ego lite's CLI, run
 * the prelude-wrapped script in the preset's task space under that space's lock, collect the screenshots, and
 * answer the result the tool hands back.
 */
import { tmpdir } from "node:os";
import { z } from "zod";
import {
  BROWSER_RESULT,
  BROWSER_RESULT_PREFIX,
  BROWSER_TIMINGS,
  MAX_SCREENSHOTS,
  OVERLAP_NOTE,
  RESULT_CAP_BYTES,
  SCREENSHOT_MAX_EDGE,
} from "../../src/io/browser/results.ts";
import type { ToolResult } from "../../src/io/chat/tools/client-tools.ts";
import { COMMANDS } from "../../src/protocol/commands.ts";
import type { CommandHandler, CommandOptions, CommandTable } from "../commands.ts";

export type { CommandHandler, CommandOptions };

import { BackstopKills } from "./backstop-kills.ts";
import { runCli } from "./cli-process.ts";
import { locateEgoBrowser } from "./locate.ts";
import { buildScript, spaceName } from "./prelude.ts";
import { composeScriptText, cutUtf8 } from "./result-text.ts";
import {
  collectScreenshots,
  createShotFolder,
  removeLeftoverShotFolders,
  screenshotNotes,
} from "./screenshots.ts";
import { SpaceLocks } from "./space-lock.ts";

/** Where and how fast the host runs ego lite; the spec's values by default, scaled down in tests. */
export interface BrowserHostConfig {
  /** The script stops itself after this long (written into the prelude). */
  deadlineMs: number;
  /** The host kills the CLI this long after starting it. */
  backstopMs: number;
  /** After the CLI exits, how long to wait for its pipes to close (a launched ego lite may keep them open). */
  graceMs: number;
  /** Where the per-call screenshot folders go (the OS temp directory). */
  tmpDir: string;
  /** The CLI's environment; HOME and PATH locate it. */
  env: NodeJS.ProcessEnv;
  /** The per-space locks; one set per host. */
  locks: SpaceLocks;
  /**
   * How long after a backstop kill the killed script may still run: a later call of that space whose CLI starts
   * within it carries OVERLAP_NOTE. By default the deadline plus the slack between deadline and backstop
   * (25 s + 3 s = 28 s): the script may have started as late as the kill (ego lite launching, say), and stops
   * itself at its own start + the deadline.
   */
  overlapMs: number;
  /** The backstop kills per space; one set per host. */
  kills: BackstopKills;
}

const hostLocks = new SpaceLocks();
const hostKills = new BackstopKills();

/** The host's configuration: the spec's timings, the OS temp directory, this process's environment and locks. */
export function browserHostConfig(overrides: Partial<BrowserHostConfig> = {}): BrowserHostConfig {
  const deadlineMs = overrides.deadlineMs ?? BROWSER_TIMINGS.deadlineMs;
  const backstopMs = overrides.backstopMs ?? BROWSER_TIMINGS.backstopMs;
  return {
    deadlineMs,
    backstopMs,
    graceMs: 500,
    tmpDir: tmpdir(),
    env: process.env,
    locks: hostLocks,
    overlapMs: deadlineMs + Math.max(0, backstopMs - deadlineMs),
    kills: hostKills,
    ...overrides,
  };
}

// The contract's arguments (src/protocol/commands.ts): a preset id becomes part of a JS string literal and a space
// name, so it holds no control or line-separator characters.
const RunArgs = COMMANDS.browser_run.args;

/**
 * browser_run: runs code in the space yui-<presetId> and returns the result text, or { text, images } with
 * screenshots. A signal that aborts before the script starts cancels it; once started, the run goes to its end.
 */
export async function browserRun(
  args: unknown,
  opts: CommandOptions = {},
  config: BrowserHostConfig = browserHostConfig(),
): Promise<ToolResult> {
  const parsed = RunArgs.safeParse(args);
  if (!parsed.success) throw new Error(`invalid browser_run arguments: ${z.prettifyError(parsed.error)}`);
  const { presetId, code } = parsed.data;

  const cli = await locateEgoBrowser(config.env);
  if (!cli) return BROWSER_RESULT.notFound;

  const space = spaceName(presetId);
  let release: () => void;
  try {
    release = await config.locks.acquire(space, opts.signal);
  } catch {
    // The caller already answered (turn stopped or its wait passed); nothing ran.
    return BROWSER_RESULT.turnStopped;
  }
  try {
    if (opts.signal?.aborted) return BROWSER_RESULT.turnStopped;
    let folder: string;
    try {
      folder = await createShotFolder(config.tmpDir);
    } catch (err) {
      return BROWSER_RESULT_PREFIX.shotFolderFailed + reasonOf(err);
    }
    const script = buildScript({ space, shotFolder: folder, deadlineMs: config.deadlineMs, code });
    // Decided as the CLI starts: a script killed earlier in this space may still run beside this one.
    const overlap = config.kills.mayStillRun(space) ? OVERLAP_NOTE : undefined;
    const outcome = await runCli({
      path: cli,
      args: ["nodejs"],
      input: script,
      env: config.env,
      backstopMs: config.backstopMs,
      graceMs: config.graceMs,
    });
    // Collected on every ending (success, failure, deadline, backstop kill), and the folder goes with it.
    const shots = await collectScreenshots(folder, {
      maxShots: MAX_SCREENSHOTS,
      maxEdge: SCREENSHOT_MAX_EDGE,
    });
    if (!outcome.started) return BROWSER_RESULT_PREFIX.failedToStart + outcome.reason;

    // After a backstop kill the script's state is unknown: the answer is that exact string (the spec's status
    // lines are the two failures only), with whatever screenshots it took for the backend to inspect.
    if (outcome.killed) {
      config.kills.record(space, (outcome.killedAt ?? Date.now()) + config.overlapMs);
      const text = overlap ? `${BROWSER_RESULT.unknown}\n${overlap}` : BROWSER_RESULT.unknown;
      return shots.images.length > 0 ? { text, images: shots.images } : text;
    }
    const { output, overflow } = outcome.stderr.text();
    const status =
      outcome.code === 0
        ? undefined
        : outcome.stderr.sawDeadline
          ? BROWSER_RESULT.deadline
          : BROWSER_RESULT.failed;
    const text = composeScriptText({
      status,
      overlap,
      output,
      overflow,
      exitLine: outcome.stderr.exitLine(),
      notes: screenshotNotes(shots),
    });
    return shots.images.length > 0 ? { text, images: shots.images } : text;
  } finally {
    // Held until the CLI exited and the screenshots were collected, whoever still waits for the answer.
    release();
  }
}

/** browser_guide: runs `ego-browser skill` and returns its stdout, the installed ego lite's own guide. */
export async function browserGuide(
  _args: unknown,
  _opts: CommandOptions = {},
  config: BrowserHostConfig = browserHostConfig(),
): Promise<ToolResult> {
  const cli = await locateEgoBrowser(config.env);
  if (!cli) return BROWSER_RESULT.notFound;
  const outcome = await runCli({
    path: cli,
    args: ["skill"],
    env: config.env,
    backstopMs: config.backstopMs,
    graceMs: config.graceMs,
  });
  if (!outcome.started) return BROWSER_RESULT_PREFIX.failedToStart + outcome.reason;
  if (outcome.killed) return BROWSER_RESULT.skillTimedOut;
  if (outcome.code !== 0) {
    const stderr = outcome.stderr.text().output.trim() || exitDescription(outcome.code, outcome.signal);
    const room = RESULT_CAP_BYTES - Buffer.byteLength(BROWSER_RESULT_PREFIX.skillFailed);
    return BROWSER_RESULT_PREFIX.skillFailed + cutUtf8(stderr, room);
  }
  return outcome.stdout.text().output;
}

function exitDescription(code: number | null, signal: NodeJS.Signals | null): string {
  return code === null ? `killed by ${signal ?? "a signal"}` : `exited with code ${code}`;
}

function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * Mounts browser_run and browser_guide on the host's bridge, and deletes the yui-browser-* folders a previous run
 * left (a backstop-killed script can recreate its folder late). Call once at host start. `enabled` reads the
 * yui.browser switch: it is read here, where the code would run, at each call (the tool reads it too, but a
 * window is not what keeps the user's computer safe), and a call while off answers `error: browser is off`.
 */
export async function registerBrowserCommands(
  register: CommandTable["register"],
  enabled: () => boolean,
  config: BrowserHostConfig = browserHostConfig(),
): Promise<void> {
  await removeLeftoverShotFolders(config.tmpDir);
  register("browser_run", async (args, opts) =>
    enabled() ? browserRun(args, opts, config) : BROWSER_RESULT.off,
  );
  register("browser_guide", async (args, opts) =>
    enabled() ? browserGuide(args, opts, config) : BROWSER_RESULT.off,
  );
}
