/**
 * Her doze in the desktop app (docs/avatar.md "Dozing", issue 31), under Xvfb + openbox + xcompmgr with the real
 * GTK shell and WebKit, the delay shortened to two seconds: she dozes after it and her page stops drawing (the
 * WebKit processes' CPU time all but stops, against the same window awake); the pointer over her, a click on
 * her, a drag and a body call each wake her (main's page tells the host, which pauses her own moves while she
 * dozes and logs both); a body call to her dozing runs and answers ok; "never" keeps her awake.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@yui/mod-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type DesktopApp, startDesktopApp } from "../host/desktop/desktop-cli.ts";
import { openStore } from "../host/store/store.ts";
import { startXSession, waitFor, type XSession } from "../host/x11/testing.ts";
import { desktopSettingsKey } from "../src/protocol/body.ts";
import { DOZE_KEY } from "../src/protocol/doze.ts";
import { type AvatarMod, startAvatarMod } from "../tools/testing/avatar-mod.ts";

const W = { width: 360, height: 560 };
let x: XSession;
let app: DesktopApp;
let dataDir = "";
let avatar: AvatarMod;
const bodyLog: string[] = [];
const DOZING = "dozing: her own moves pause";
const AWAKE = "awake: her own moves resume";

const count = (line: string) => bodyLog.filter((l) => l === line).length;
/** Waits for her next doze (a "dozing" line after `n` of them). */
const dozed = (n: number) => waitFor("her doze", async () => count(DOZING) > n, 30_000);
/** Waits until she dozes (the host's last word from her page is "dozing"). */
const asleep = () =>
  waitFor(
    "her asleep",
    async () => bodyLog.filter((l) => l === DOZING || l === AWAKE).at(-1) === DOZING,
    30_000,
  );

/** CPU seconds (user + system) of the shell and its WebKit processes so far. */
function shellCpu(): number {
  const stat = new Map<number, { ppid: number; cpu: number }>();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, "utf8");
      const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
      stat.set(Number(d), { ppid: Number(f[1]), cpu: (Number(f[11]) + Number(f[12])) / 100 });
    } catch {}
  }
  let total = 0;
  const todo = [app.shell.child.pid!];
  while (todo.length) {
    const pid = todo.pop()!;
    total += stat.get(pid)?.cpu ?? 0;
    for (const [c, e] of stat) if (e.ppid === pid) todo.push(c);
  }
  return total;
}
/** The shell's CPU seconds over `ms`. */
async function cpuOver(ms: number): Promise<number> {
  const a = shellCpu();
  await new Promise((r) => setTimeout(r, ms));
  return shellCpu() - a;
}

async function herWindow() {
  const g = await app.host.body.current()!.bodyState();
  return (g as { window: { x: number; y: number } }).window;
}
/** A point on her body: the middle of her window at 60 % of its height (she stands, scale 1). */
async function onHer(): Promise<[number, number]> {
  const w = await herWindow();
  return [Math.round(w.x + W.width / 2), Math.round(w.y + W.height * 0.6)];
}
const away = () => x.x("xdotool", ["mousemove", "5", "5"]);

const call = (name: string, args: Record<string, unknown> = {}) => avatar.call(name, args);

beforeAll(async () => {
  x = await startXSession();
  x.start(["xcompmgr"]);
  dataDir = mkdtempSync(join(tmpdir(), "yui-doze-"));
  const seed = openStore(dataDir);
  seed.set(desktopSettingsKey("yui"), { scale: 1, wander: false }, "test");
  seed.set(DOZE_KEY, { delay_s: 2 }, "test");
  seed.close();
  const ingressPort = await freePort();
  const env: NodeJS.ProcessEnv = { ...x.env, LIBGL_ALWAYS_SOFTWARE: "1", YUI_DATA_DIR: dataDir };
  app = await startDesktopApp({
    port: 0,
    env,
    dataDir,
    timings: { walkPxPerS: 900, climbPxPerS: 900 },
    onQuit: () => {},
    log: (l) => env.YUI_SHELL_DEBUG && process.stderr.write(`${l}\n`),
    bodyLog: (l) => bodyLog.push(l),
  });
  avatar = await startAvatarMod(app.host.store, ingressPort);
  await waitFor("main's body attached", async () => app.host.body.current() !== null, 60_000);
  await away();
}, 180_000);

afterAll(async () => {
  await avatar?.close();
  await app?.stop();
  await x?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe("her doze on the desktop", { timeout: 120_000 }, () => {
  it("dozes after the delay and her page stops drawing; never keeps her awake", async () => {
    await dozed(0);
    // Settled (her resting motion is 1.5 s, her hair 2 s more): what her window costs now.
    await new Promise((r) => setTimeout(r, 5000));
    const dozing = await cpuOver(4000);
    // Never: she wakes and stays awake, drawing her idle life, over the same time.
    const woke = count(AWAKE);
    const dozes = count(DOZING);
    app.host.store.set(DOZE_KEY, { delay_s: "never" }, "test");
    await waitFor("her waking", async () => count(AWAKE) > woke, 30_000);
    const awake = await cpuOver(4000);
    expect(count(DOZING)).toBe(dozes);
    expect(awake).toBeGreaterThan(dozing * 4);
    app.host.store.set(DOZE_KEY, { delay_s: 2 }, "test");
    await dozed(dozes);
  });

  it("wakes when the pointer comes over her, and at a click on her", async () => {
    await asleep();
    let woke = count(AWAKE);
    const [hx, hy] = await onHer();
    await x.x("xdotool", ["mousemove", String(hx), String(hy)]);
    await x.x("xdotool", ["mousemove", String(hx + 3), String(hy + 3)]);
    await waitFor("woken by the pointer", async () => count(AWAKE) > woke, 30_000);
    await away();
    await asleep();
    woke = count(AWAKE);
    await x.x("xdotool", ["mousemove", String(hx), String(hy), "click", "1"]);
    await waitFor("woken by a click", async () => count(AWAKE) > woke, 30_000);
    await away();
  });

  it("wakes when the user drags her window", async () => {
    await asleep();
    const woke = count(AWAKE);
    const [hx, hy] = await onHer();
    await x.x("xdotool", ["mousemove", String(hx), String(hy), "mousedown", "1"]);
    for (let i = 1; i <= 6; i++) await x.x("xdotool", ["mousemove", String(hx - i * 20), String(hy)]);
    await waitFor("woken by the drag", async () => count(AWAKE) > woke, 30_000);
    await x.x("xdotool", ["mouseup", "1"]);
    await away();
  });

  it("a body call to her dozing wakes her, runs and answers ok", async () => {
    await waitFor("her at rest", async () => {
      const b = (await app.host.body.current()!.bodyState()) as { moving: boolean; posture: string };
      return !b.moving && b.posture !== "dragging";
    });
    await asleep();
    const woke = count(AWAKE);
    const r = await call("move_to", { spot: "bottom_right", monitor: 0 });
    expect(r.isError).toBeFalsy();
    expect(count(AWAKE)).toBeGreaterThan(woke);
    const b = (await app.host.body.current()!.bodyState()) as { window: { x: number } };
    expect(b.window.x).toBeGreaterThan(1000);
  });
});
