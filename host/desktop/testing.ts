/**
 * Test support: a real host whose main body is the real desktop body (host/desktop/body.ts, its BodyMachine on the
 * real clock) over a stand-in shell and a fixed desktop, without an X server or a shell process. Main's page is
 * a bridge connection that holds `body_attach`, as the desktop page does. For tests of what every caller of
 * her body hears (tests/body-limit.test.ts); the whole desktop on X is tests/desktop-body.test.ts.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@yui/mod-kit/testing";
import type { ShellToHost } from "../../shell/contract.ts";
import type { BodyTimings } from "../../src/body/machine.ts";
import type { World } from "../../src/body/world.ts";
import { desktopSettingsKey } from "../../src/protocol/body.ts";
import { type Host, startHost } from "../server/server.ts";
import { bridgeClient } from "../server/testing.ts";
import { createDesktopBodies, type DesktopBodiesOptions } from "./body.ts";

/** One monitor of 1920x1200 with a 40 px panel at the bottom, and no other windows. */
export const BODY_WORLD: World = {
  windows: [],
  monitors: [
    {
      name: "ONE",
      rect: { x: 0, y: 0, width: 1920, height: 1200 },
      workArea: { x: 0, y: 0, width: 1920, height: 1160 },
    },
  ],
};
/** Her window as the stand-in shell maps it: standing on the floor in the middle of the monitor. */
export const BODY_WINDOW = { x: 780, y: 600, width: 360, height: 560 } as const;

export interface BodyHost {
  host: Host;
  /** Where the host placed her window last (the shell's `move`), as the user would see it. */
  placed(): { x: number; y: number };
  close(): Promise<void>;
}

/**
 * Starts a host on a fresh data directory with main's (`presetId`) body attached and read: the stand-in shell
 * reports her window mapped at BODY_WINDOW and records the host's moves; the desktop is BODY_WORLD.
 */
export async function startBodyHost(timings: Partial<BodyTimings>, presetId = "yui"): Promise<BodyHost> {
  const dataDir = mkdtempSync(join(tmpdir(), "yui-body-host-"));
  const host = await startHost({ port: 0, dataDir, env: {}, browserCommands: false });
  // Her window as BODY_WINDOW says (scale 1), and still unless a caller moves her.
  host.store.set(desktopSettingsKey(presetId), { scale: 1, wander: false }, "test");
  const listeners = new Set<(m: ShellToHost) => void>();
  let placed: { x: number; y: number } = { x: BODY_WINDOW.x, y: BODY_WINDOW.y };
  const shell: DesktopBodiesOptions["shell"] = {
    send(m) {
      if (m.type === "move" && m.id === presetId) placed = { x: m.x, y: m.y };
    },
    on(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    // No screen to capture here.
    next: () => Promise.reject(new Error("the stand-in shell captures nothing")),
  };
  const bodies = createDesktopBodies({
    shell,
    store: host.store,
    broadcast: (name, payload) => host.bridge.broadcast(name, payload),
    watchWorld: (onChange) => {
      onChange(BODY_WORLD);
      return { stop: () => {}, refresh: async () => {}, resume: () => {} };
    },
    vrm: () => "default",
    timings,
  });
  host.body.provide(bodies);
  for (const fn of listeners) fn({ type: "mapped", id: presetId, monitor: 0, ...BODY_WINDOW });
  const page = await bridgeClient(host);
  void page.invoke("body_attach", { presetId });
  await waitFor("main's body attached", async () => (await page.invoke("body_read", { at: "body" })).ok);
  return {
    host,
    placed: () => placed,
    async close() {
      page.close();
      bodies.dispose();
      await host.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
