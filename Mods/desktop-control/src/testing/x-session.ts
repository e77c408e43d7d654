// A real X desktop for the tests: Xvfb with one wide screen cut into two RandR monitors, openbox
// as the EWMH window manager, and helpers to start real X clients. Everything started is killed
// by close().
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { startXServer, waitFor } from "@yui/mod-kit/testing";
import x11, { type XClient } from "x11";
import { runProgram } from "../exec.ts";
import { parseMonitors } from "../platform/x11-parse.ts";

/** The two monitors every test session has: a 1920x1200 left one and a 1280x1024 right one. */
export const MONITORS = [
  { name: "DC-LEFT", x: 0, y: 0, width: 1920, height: 1200, mm: [508, 318] },
  { name: "DC-RIGHT", x: 1920, y: 0, width: 1280, height: 1024, mm: [338, 270] },
] as const;
const SCREEN = "3200x1200x24";

/** A running test desktop. */
export interface XSession {
  display: string;
  env: NodeJS.ProcessEnv;
  /** Starts an X client; it is killed by close() if still running. */
  start(argv: string[]): ChildProcess;
  /** Runs an X utility against this display and returns stdout. */
  x(file: string, args: string[]): Promise<string>;
  close(): Promise<void>;
}

const call = <T>(fn: (cb: (err: Error | null, v: T) => void) => void): Promise<T> =>
  new Promise((resolve, reject) => fn((err, v) => (err ? reject(err) : resolve(v))));

export { waitFor };

// RandR 1.5 monitors defined by a client live only as long as that client's connection (Xvfb 21),
// and xrandr --setmonitor disconnects at once; so the session holds its own connection open and
// defines the monitors over it. The x11 package has no SetMonitor, so the request is packed here.
async function defineMonitors(display: string): Promise<XClient> {
  const d = await call<{ client: XClient; screen: { root: number }[] }>((cb) =>
    x11.createClient({ display }, cb),
  );
  const X = d.client;
  const root = d.screen[0]!.root;
  const randr = await call<import("x11").RandrExt>((cb) => X.require("randr", cb));
  await call((cb) => randr.QueryVersion(1, 6, cb));
  const { outputs } = await call<{ outputs: number[] }>((cb) => randr.GetScreenResources(root, cb));
  for (const [i, m] of MONITORS.entries()) {
    const atom = await call<number>((cb) => X.InternAtom(false, m.name, cb));
    // The left monitor takes over the screen's only output, so the automatic whole-screen monitor goes.
    const outs = i === 0 ? outputs.slice(0, 1) : [];
    const b = Buffer.alloc(32 + 4 * outs.length);
    b.writeUInt8(randr.majorOpcode, 0);
    b.writeUInt8(43, 1); // RRSetMonitor
    b.writeUInt16LE(8 + outs.length, 2);
    b.writeUInt32LE(root, 4);
    b.writeUInt32LE(atom, 8);
    b.writeUInt8(i === 0 ? 1 : 0, 12); // primary
    b.writeUInt8(0, 13); // automatic
    b.writeUInt16LE(outs.length, 14);
    b.writeInt16LE(m.x, 16);
    b.writeInt16LE(m.y, 18);
    b.writeUInt16LE(m.width, 20);
    b.writeUInt16LE(m.height, 22);
    b.writeUInt32LE(m.mm[0], 24);
    b.writeUInt32LE(m.mm[1], 28);
    for (const [k, o] of outs.entries()) b.writeUInt32LE(o, 32 + 4 * k);
    X.seq_num++;
    X.pack_stream.put(b);
    X.pack_stream.submit();
  }
  return X;
}

/** Starts Xvfb (a free display number picked by Xvfb itself), the two monitors and openbox. */
export async function startXSession(): Promise<XSession> {
  const server = await startXServer(SCREEN);
  const { display, env } = server;
  let holder: XClient | undefined;
  const kill = async () => {
    holder?.close();
    await server.close();
  };
  try {
    const x = (file: string, args: string[]) => runProgram(file, args, { env }).then((r) => r.stdout);
    holder = await defineMonitors(display);
    await waitFor(
      "two RandR monitors",
      async () => parseMonitors(await x("xrandr", ["--listmonitors"])).length === 2,
    );
    // Xt clients (xclock, xeyes) ask for no keyboard input by default, and a window manager does not
    // focus such windows; the resource makes them focusable like ordinary apps.
    const res = path.join(await mkdtemp(path.join(tmpdir(), "dc-xrdb-")), "resources");
    await writeFile(res, "*input: true\n");
    await x("xrdb", ["-nocpp", "-merge", res]);
    await rm(path.dirname(res), { recursive: true, force: true });
    await server.startOpenbox();
    return {
      display,
      env,
      x,
      start: server.start,
      close: kill,
    };
  } catch (e) {
    await kill();
    throw e;
  }
}
