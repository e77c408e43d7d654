/**
 * `yui desktop [--port N]`: the host and the desktop shell together. The characters appear on the desktop;
 * quitting the shell (closing main's window) ends the host, and Ctrl+C ends both.
 */
import { parseHostArgs } from "../server/serve-cli.ts";
import { DEFAULT_PORT, type Host, PortInUseError, startHost } from "../server/server.ts";
import { type Desktop, startDesktop } from "./desktop.ts";
import { type ShellProcess, spawnShell } from "./shell-process.ts";

/** The usage of `yui desktop`. */
export const DESKTOP_USAGE = `usage: yui desktop [--port <0-65535>]

Starts the host on 127.0.0.1 (default port ${DEFAULT_PORT}; 0 picks a free one) and the desktop shell:
each open character in her own transparent window on top of the others. Linux: gjs + WebKitGTK 4.1 on
X11 (XWayland on Wayland). Quit with Ctrl+C, or by closing main's window.
`;

/** Parses desktop's arguments; throws with a message for the user on a bad one. */
export function parseDesktopArgs(argv: string[]): { port: number } {
  return { port: parseHostArgs(argv).port };
}

/** Runs the host and the shell until either ends; 2 for bad arguments, 1 when either cannot start. */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let args: { port: number };
  try {
    args = parseDesktopArgs(argv);
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n${DESKTOP_USAGE}`);
    return 2;
  }
  if (process.platform === "linux" && !env.DISPLAY && !env.WAYLAND_DISPLAY) {
    process.stderr.write(
      "error: no graphical session here (DISPLAY is not set). Start the browser build with `yui serve`.\n",
    );
    return 1;
  }
  let host: Host;
  try {
    host = await startHost({ port: args.port, env });
  } catch (e) {
    process.stderr.write(`error: ${e instanceof PortInUseError ? e.message : (e as Error).message}\n`);
    return 1;
  }
  const shell: ShellProcess = spawnShell({
    env,
    log: (l) => process.stderr.write(`${l}\n`),
  });
  let desktop: Desktop | null = null;
  let quit!: () => void;
  const quitting = new Promise<void>((r) => {
    quit = r;
  });
  try {
    const ready = await shell.ready;
    desktop = startDesktop({
      shell,
      store: host.store,
      hostUrl: host.url,
      monitors: ready.monitors,
      onQuit: quit,
    });
    process.stdout.write(
      `YUI is on your desktop (host at ${host.url})\ndata: ${host.dataDir}\n` +
        `${ready.compositor ? "" : "no compositor: she is shown in a framed, opaque window (start xcompmgr, picom or your desktop's compositor for transparency)\n"}` +
        `${ready.wayland ? "Wayland: running through XWayland; other apps' native Wayland windows cannot be listed or sat on\n" : ""}` +
        "(press Ctrl+C to quit, or close main's window)\n",
    );
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    await shell.stop();
    await host.close();
    return 1;
  }
  const onSignal = () => quit();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const code = await Promise.race([quitting.then(() => 0), shell.exited.then(() => 0)]);
  process.off("SIGINT", onSignal);
  process.off("SIGTERM", onSignal);
  desktop.dispose();
  await shell.stop();
  await host.close();
  return code;
}
