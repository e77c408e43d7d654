// A real X desktop for the tests: Xvfb (-noreset, so monitors defined by xrandr --setmonitor outlive xrandr's
// connection) with one 3200x1200 screen split into two RandR monitors, and openbox as the EWMH window manager.
// close() kills everything started.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { waitFor } from "@yui/mod-kit/testing";

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
  const children: ChildProcess[] = [];
  const close = async () => {
    for (const c of children.reverse()) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      c.kill("SIGTERM");
      await Promise.race([once(c, "exit"), new Promise((r) => setTimeout(r, 3000))]);
      if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    }
  };
  const xvfb = spawn(
    "Xvfb",
    ["-displayfd", "3", "-screen", "0", "3200x1200x24", "-nolisten", "tcp", "-noreset"],
    {
      stdio: ["ignore", "ignore", "ignore", "pipe"],
    },
  );
  children.push(xvfb);
  try {
    const n = await new Promise<string>((resolve, reject) => {
      let text = "";
      (xvfb.stdio[3] as NodeJS.ReadableStream).on("data", (c: Buffer) => {
        text += c.toString();
        if (text.includes("\n")) resolve(text.trim());
      });
      xvfb.once("exit", (code) => reject(new Error(`Xvfb exited with ${code}`)));
      setTimeout(() => reject(new Error("Xvfb did not report a display")), 15_000);
    });
    const display = `:${n}`;
    const env = { ...process.env, DISPLAY: display, LC_ALL: "C.UTF-8" };
    const x = (file: string, args: readonly string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(file, [...args], { env, timeout: 10_000 }, (err, stdout, stderr) =>
          err ? reject(new Error(`${file} ${args.join(" ")}: ${err.message} ${stderr}`)) : resolve(stdout),
        ),
      );
    for (const m of TEST_MONITORS) await x("xrandr", ["--setmonitor", m.name, m.geometry, m.output]);
    const ob = spawn("openbox", ["--sm-disable"], { env, stdio: "ignore" });
    children.push(ob);
    await waitFor("openbox", async () =>
      /0x[0-9a-f]*[1-9a-f]/.test(await x("xprop", ["-root", "-notype", "_NET_SUPPORTING_WM_CHECK"])),
    );
    return {
      display,
      env,
      x,
      start(argv) {
        const c = spawn(argv[0]!, argv.slice(1), { env, stdio: "ignore" });
        children.push(c);
        return c;
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
