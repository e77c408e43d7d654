// A real X desktop for the tests: Xvfb (-noreset, so monitors defined by xrandr --setmonitor outlive xrandr's
// connection) with one 3200x1200 screen split into two RandR monitors, and openbox as the EWMH window manager.
// close() kills everything started. countSpawns() counts the child processes this process starts.
import { ChildProcess, execFile } from "node:child_process";
import { startXServer, waitFor } from "@yui/mod-kit/testing";
import type { World } from "../../src/body/world.ts";
import { readWorld } from "./windows.ts";

/** The two monitors: a 1920x1200 left one (on the screen's output) and a 1280x1024 right one. */
export const TEST_MONITORS = [
  { name: "BODY-LEFT", geometry: "1920/508x1200/318+0+0", output: "screen" },
  { name: "BODY-RIGHT", geometry: "1280/338x1024/270+1920+0", output: "none" },
] as const;

export interface XSession {
  display: string;
  env: NodeJS.ProcessEnv;
  /** Runs an X utility with an argument array; rejects on a non-zero exit. */
  x(file: string, args: readonly string[]): Promise<string>;
  /** Starts an X client, killed by close() if still running. */
  start(argv: readonly string[]): ChildProcess;
  close(): Promise<void>;
}

export { waitFor };

export async function startXSession(): Promise<XSession> {
  const server = await startXServer("3200x1200x24");
  const { env } = server;
  try {
    const x = (file: string, args: readonly string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(file, [...args], { env, timeout: 10_000 }, (err, stdout, stderr) =>
          err ? reject(new Error(`${file} ${args.join(" ")}: ${err.message} ${stderr}`)) : resolve(stdout),
        ),
      );
    for (const m of TEST_MONITORS) await x("xrandr", ["--setmonitor", m.name, m.geometry, m.output]);
    await server.startOpenbox();
    return { display: server.display, env, x, start: server.start, close: server.close };
  } catch (e) {
    await server.close();
    throw e;
  }
}

/** The first reading of the window model (over a connection of its own each time) that satisfies `pred`. */
export const untilWorld = (display: string, what: string, pred: (w: World) => boolean): Promise<World> =>
  waitFor(what, async () => {
    const w = await readWorld(display);
    return pred(w) ? w : undefined;
  });

/** The processes started since countSpawns(), as argument vectors. */
export interface SpawnCount {
  readonly argv: readonly string[][];
  stop(): void;
}

/**
 * Records every child process this process starts until stop(): spawn, exec and execFile all start one through
 * ChildProcess#spawn, which this wraps (the process still starts). For "nothing was spawned" tests: the test's
 * own commands are the positive control, recorded beside anything else.
 */
export function countSpawns(): SpawnCount {
  const proto = ChildProcess.prototype as unknown as { spawn(o: { file: string; args?: string[] }): unknown };
  const original = proto.spawn;
  const argv: string[][] = [];
  proto.spawn = function (this: unknown, o) {
    argv.push(o.args?.length ? [...o.args] : [o.file]);
    return original.call(this, o);
  };
  return {
    argv,
    stop() {
      proto.spawn = original;
    },
  };
}
