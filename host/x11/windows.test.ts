// The window model kept by one X connection (windows.ts) against a real Xvfb + openbox desktop with two RandR
// monitors and real xterm/xclock windows: held to what xprop, xwininfo and xrandr read of the same desktop
// (xtools.ts), kept current from events, and without starting any process.
import { startXServer } from "@yui/mod-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chooseSitTarget } from "../../src/body/perch.ts";
import type { World } from "../../src/body/world.ts";
import { connectX } from "./connection.ts";
import { countSpawns, startXSession, untilWorld, waitFor, type XSession } from "./testing.ts";
import { readWorld, x11Desktop } from "./windows.ts";
import { readWorldByTools, xRunner } from "./xtools.ts";

let s: XSession;
const ids: Record<string, string> = {};

/** The frame as the X server has it: the client's parent (openbox's frame window) under the root. */
async function frameOf(id: string) {
  const tree = await s.x("xwininfo", ["-tree", "-id", id]);
  const parent = /Parent window id: (0x[0-9a-f]+)/.exec(tree)![1]!;
  const info = await s.x("xwininfo", ["-id", parent]);
  const n = (l: string) => Number(new RegExp(`${l}:\\s+(-?\\d+)`).exec(info)![1]);
  return {
    x: n("Absolute upper-left X"),
    y: n("Absolute upper-left Y"),
    width: n("Width"),
    height: n("Height"),
  };
}

async function startClient(argv: string[], cls: string): Promise<string> {
  s.start(argv);
  const found = await waitFor(`${cls}'s window`, async () => {
    const out = await s.x("xdotool", ["search", "--onlyvisible", "--class", `^${cls}$`]).catch(() => "");
    const id = out.trim().split("\n")[0];
    return id ? `0x${Number(id).toString(16)}` : undefined;
  });
  // openbox has managed it once it carries frame extents
  await waitFor(`${cls} managed`, async () =>
    /= \d/.test(await s.x("xprop", ["-id", found, "_NET_FRAME_EXTENTS"])),
  );
  return found;
}

const appsIn = (w: World) => w.windows.map((x) => x.app);
const until = (what: string, pred: (w: World) => boolean) => untilWorld(s.display, what, pred);

beforeAll(async () => {
  s = await startXSession();
  ids.xterm = await startClient(["xterm", "-geometry", "80x24+100+100", "-title", "term one ✓"], "XTerm");
  ids.xclock = await startClient(["xclock", "-geometry", "200x200+2100+300"], "XClock");
  ids.hers = await startClient(["xterm", "-class", "YUI", "-geometry", "40x10+600+600"], "YUI");
});
afterAll(async () => {
  await s?.close();
});

describe("the window model read through the X connection", () => {
  it("lists monitors and other apps' windows front to back, with frames, names and titles; hers left out", async () => {
    const w = await until("both windows", (w) => w.windows.length === 2);
    expect(w.monitors).toEqual([
      {
        name: "BODY-LEFT",
        rect: { x: 0, y: 0, width: 1920, height: 1200 },
        workArea: { x: 0, y: 0, width: 1920, height: 1200 },
      },
      {
        name: "BODY-RIGHT",
        rect: { x: 1920, y: 0, width: 1280, height: 1024 },
        workArea: { x: 1920, y: 0, width: 1280, height: 1024 },
      },
    ]);
    // her own (WM_CLASS YUI) is in the stacking list but not in the model
    expect(await s.x("xprop", ["-root", "_NET_CLIENT_LIST_STACKING"])).toContain(ids.hers!.slice(2));
    expect(appsIn(w)).toEqual(["XClock", "XTerm"]);
    const term = w.windows[1]!;
    expect(term).toMatchObject({ id: ids.xterm, app: "XTerm", aliases: ["xterm"], title: "term one ✓" });
    expect(term.rect).toEqual(await frameOf(ids.xterm!));
    expect(term.rect).toMatchObject({ x: 100, y: 100 });
    expect(w.windows[0]!.rect).toEqual(await frameOf(ids.xclock!));
    expect(w.hers).toHaveLength(1);
  });

  it("equals the reading of xprop, xwininfo and xrandr: titles by WM_NAME in UTF-8 and Latin-1, the process name without WM_CLASS, a work area left by a dock", async () => {
    const run = xRunner(s.display);
    const plain = await startClient(["xterm", "-class", "Plain", "-geometry", "30x5+1000+700"], "Plain");
    const latin = await startClient(["xterm", "-class", "Latin", "-geometry", "30x5+1300+700"], "Latin");
    const dock = await startClient(["xterm", "-class", "Dock", "-geometry", "30x2+0+0"], "Dock");
    try {
      // The title only in WM_NAME (Xlib's encoding of text: COMPOUND_TEXT for characters outside Latin-1,
      // STRING within), no WM_CLASS (the app is then the process name), and a dock reserving the top 40 px.
      await s.x("xprop", ["-id", plain, "-remove", "_NET_WM_NAME", "-remove", "WM_CLASS"]);
      await s.x("xprop", ["-id", plain, "-f", "WM_NAME", "8t", "-set", "WM_NAME", "naïve ✓ 名前"]);
      await s.x("xprop", ["-id", latin, "-remove", "_NET_WM_NAME"]);
      await s.x("xprop", ["-id", latin, "-f", "WM_NAME", "8t", "-set", "WM_NAME", "café"]);
      await s.x("xprop", [
        ...["-id", dock, "-f", "_NET_WM_STRUT_PARTIAL", "32c", "-set", "_NET_WM_STRUT_PARTIAL"],
        "0,0,40,0,0,0,0,0,0,1919,0,0",
      ]);
      const w = await until(
        "the desktop settled",
        (w) => w.monitors[0]!.workArea.y === 40 && w.windows.some((x) => x.title === "café"),
      );
      expect(await s.x("xprop", ["-id", plain, "WM_NAME"])).toContain("(COMPOUND_TEXT)");
      expect(await s.x("xprop", ["-id", latin, "WM_NAME"])).toContain("(STRING)");
      expect(w.windows.find((x) => x.id === plain)).toMatchObject({ app: "xterm", title: "naïve ✓ 名前" });
      expect(w.windows.find((x) => x.id === latin)).toMatchObject({ app: "Latin", title: "café" });
      expect(w.monitors[0]!.workArea).toEqual({ x: 0, y: 40, width: 1920, height: 1160 });
      expect(w.windows).toHaveLength(5);
      expect(await readWorldByTools(run)).toEqual(w);
    } finally {
      for (const id of [plain, latin, dock]) await s.x("wmctrl", ["-i", "-c", id]);
    }
    await until("back to two windows", (w) => w.windows.length === 2 && w.monitors[0]!.workArea.y === 0);
  });

  it("follows raise and move (frame = geometry + extents, not wmctrl -lG's double count)", async () => {
    await s.x("wmctrl", ["-i", "-a", ids.xterm!]);
    await until("xterm in front", (w) => appsIn(w)[0] === "XTerm");
    await s.x("xdotool", ["windowmove", ids.xterm!, "700", "400"]);
    const w = await until("xterm moved", (w) => w.windows[0]?.rect.x === 700);
    expect(w.windows[0]!.rect).toMatchObject({ x: 700, y: 400 });
    expect(w.windows[0]!.rect).toEqual(await frameOf(ids.xterm!));
  });

  it("real top-edge coverage: a window over the top edge blocks or narrows sit_on_window", async () => {
    // xclock (200 px wide frame) over the middle of xterm's top edge, then raised in front of it
    await s.x("xdotool", ["windowmove", ids.xclock!, "840", "350"]);
    await s.x("wmctrl", ["-i", "-a", ids.xclock!]);
    const w = await until(
      "xclock over xterm",
      (w) => appsIn(w)[0] === "XClock" && w.windows[0]!.rect.x === 840,
    );
    const term = w.windows[1]!;
    const pick = chooseSitTarget(w, "xterm", { strip: 4, width: 120 });
    expect(pick).not.toBe("blocked");
    if (typeof pick === "string") throw new Error(pick);
    const clock = w.windows[0]!.rect;
    // she sits off the covered span
    expect(pick.x + 60 <= clock.x || pick.x - 60 >= clock.x + clock.width).toBe(true);
    expect(pick.x - 60).toBeGreaterThanOrEqual(term.rect.x);
    // a wide cover: blocked
    await s.x("xdotool", ["windowsize", ids.xclock!, "900", "200"]);
    await s.x("xdotool", ["windowmove", ids.xclock!, "600", "300"]);
    const w2 = await until("xclock covers the whole edge", (w) => (w.windows[0]?.rect.width ?? 0) > 800);
    expect(chooseSitTarget(w2, "XTerm", { strip: 4, width: 120 })).toBe("blocked");
    expect(chooseSitTarget(w2, "firefox")).toBe("not_found");
  });

  it("leaves out minimized and other-workspace windows", async () => {
    await s.x("xdotool", ["windowminimize", ids.xclock!]);
    expect(appsIn(await until("xclock minimized", (w) => w.windows.length === 1))).toEqual(["XTerm"]);
    await s.x("wmctrl", ["-i", "-a", ids.xclock!]); // restores it
    await until("xclock back", (w) => w.windows.length === 2);
    await s.x("wmctrl", ["-i", "-r", ids.xclock!, "-t", "1"]);
    expect(appsIn(await until("xclock on workspace 2", (w) => w.windows.length === 1))).toEqual(["XTerm"]);
    await s.x("wmctrl", ["-s", "1"]);
    expect(appsIn(await until("on workspace 2", (w) => appsIn(w).join() === "XClock"))).toEqual(["XClock"]);
    await s.x("wmctrl", ["-s", "0"]);
    await until("back on workspace 1", (w) => appsIn(w).join() === "XTerm");
    await s.x("wmctrl", ["-i", "-r", ids.xclock!, "-t", "0"]);
    await until("xclock on workspace 1 again", (w) => w.windows.length === 2);
  });
});

describe("a watch kept current by X events", () => {
  it("tells a window opening, retitled, restacked, moved, minimized and closed, and a monitor added and deleted", async () => {
    const seen: World[] = [];
    const watch = x11Desktop(s.display).watch((w) => seen.push(w));
    const now = () => seen[seen.length - 1]!;
    const when = (what: string, pred: (w: World) => boolean) =>
      waitFor(what, async () => seen.length > 0 && pred(now()));
    const spied = (w: World) => w.windows.find((x) => x.title?.startsWith("spied"));
    try {
      await when("the first world", (w) => w.windows.length === 2);
      s.start(["xterm", "-geometry", "30x5+1500+500", "-title", "spied"]);
      await when("the new window, in front", (w) => w.windows[0]?.title === "spied");
      const id = spied(now())!.id;
      await s.x("xdotool", ["set_window", "--name", "spied again", id]);
      await when("its new title", (w) => spied(w)?.title === "spied again");
      await s.x("wmctrl", ["-i", "-a", ids.xclock!]);
      await when("the xclock raised over it", (w) => w.windows[0]?.id === ids.xclock);
      await s.x("xdotool", ["windowmove", id, "1700", "600"]);
      await when("its move", (w) => spied(w)?.rect.x === 1700 && spied(w)?.rect.y === 600);
      expect(spied(now())!.rect).toEqual(await frameOf(id));
      await s.x("xdotool", ["windowsize", "--sync", id, "500", "300"]);
      const sized = await frameOf(id);
      await when("its new size", (w) => spied(w)?.rect.width === sized.width);
      expect(spied(now())!.rect).toEqual(sized);
      await s.x("xdotool", ["windowminimize", id]);
      await when("minimized", (w) => !spied(w));
      await s.x("wmctrl", ["-i", "-a", id]);
      await when("restored", (w) => !!spied(w));
      await s.x("xrandr", ["--setmonitor", "BODY-EXTRA", "400/100x300/80+2000+1050", "none"]);
      await when("the monitor added", (w) => w.monitors.length === 3 && w.monitors[2]!.name === "BODY-EXTRA");
      await s.x("xrandr", ["--delmonitor", "BODY-EXTRA"]);
      await when("the monitor deleted", (w) => w.monitors.length === 2);
      await s.x("wmctrl", ["-i", "-c", id]);
      await when("its close", (w) => !spied(w) && w.windows.length === 2);
      expect(now()).toEqual(await readWorldByTools(xRunner(s.display)));
    } finally {
      watch.stop();
    }
  });

  it("starts no process: not to read, not at rest, not while a window moves (the test's own commands are the control)", async () => {
    const spawns = countSpawns();
    const mine: string[][] = [];
    const run = async (...argv: string[]) => {
      mine.push(argv);
      await s.x(argv[0]!, argv.slice(1));
    };
    const seen: World[] = [];
    const watch = x11Desktop(s.display).watch((w) => seen.push(w));
    const term = (w: World | undefined) => w?.windows.find((x) => x.id === ids.xterm);
    try {
      await waitFor("the first world", async () => seen.length > 0);
      const told = seen.length;
      // At rest, a title change the watch must tell (proof that it is listening all along).
      await run("xdotool", "set_window", "--name", "at rest", ids.xterm!);
      await waitFor("the new title", async () => term(seen.at(-1))?.title === "at rest");
      expect(seen.length).toBe(told + 1);
      for (const x of [300, 500, 900]) {
        await run("xdotool", "windowmove", ids.xterm!, String(x), "200");
        await waitFor(`the move to ${x}`, async () => term(seen.at(-1))?.rect.x === x);
      }
    } finally {
      spawns.stop();
      watch.stop();
    }
    expect(mine).toHaveLength(4);
    expect(spawns.argv).toEqual(mine);
  });

  it("one connection for all watches, closed with the last; refresh() waits for what the server had sent", async () => {
    let connections = 0;
    const desktop = x11Desktop(s.display, {
      connect: (d) => {
        connections++;
        return connectX(d);
      },
    });
    const a: World[] = [];
    const b: World[] = [];
    const wa = desktop.watch((w) => a.push(w));
    await waitFor("a's first world", async () => a.length > 0);
    const wb = desktop.watch((w) => b.push(w));
    await waitFor("b told the current world", async () => b.length > 0);
    expect(b[0]).toBe(a.at(-1));
    // xprop's change is done by the server before xprop exits (no window manager in between), so its
    // PropertyNotify was sent before refresh() asks.
    await s.x("xprop", ["-id", ids.xterm!, "-f", "_NET_WM_NAME", "8u", "-set", "_NET_WM_NAME", "refreshed"]);
    await wb.refresh();
    expect(b.at(-1)!.windows.find((x) => x.id === ids.xterm)?.title).toBe("refreshed");
    expect(a.at(-1)).toBe(b.at(-1));
    expect(connections).toBe(1);
    wa.stop();
    wb.stop();
    const wc = desktop.watch(() => {});
    await wc.refresh();
    expect(connections).toBe(2);
    wc.stop();
    expect(await readWorld(s.display)).toEqual(b.at(-1));
  });
});

describe("the user at the computer, over the same connection", () => {
  it("reads the user's idle time and the pointer (no connection: unknown), and no process is started", async () => {
    const desktop = x11Desktop(s.display);
    expect(await desktop.input.idleMs()).toBeNull();
    expect(await desktop.input.pointer()).toBeNull();
    const watch = desktop.watch(() => {});
    const spawns = countSpawns();
    try {
      await s.x("xdotool", ["mousemove", "345", "678"]);
      expect(await desktop.input.pointer()).toEqual({ x: 345, y: 678 });
      const fresh = await desktop.input.idleMs();
      expect(fresh).not.toBeNull();
      expect(fresh!).toBeLessThan(2_000);
      // Idle grows while nobody touches anything, and a new input starts it again.
      await new Promise((r) => setTimeout(r, 1_200));
      const later = (await desktop.input.idleMs())!;
      expect(later).toBeGreaterThanOrEqual(1_000);
      await s.x("xdotool", ["mousemove", "350", "680"]);
      expect((await desktop.input.idleMs())!).toBeLessThan(later);
    } finally {
      spawns.stop();
      watch.stop();
    }
    // The test's own xdotool calls are every process there was.
    expect(spawns.argv.map((a) => a[0])).toEqual(["xdotool", "xdotool"]);
  });
});

describe("without an X server", () => {
  it("a display nobody serves: the watch says so, refresh() answers, nothing is told", async () => {
    const errors: unknown[] = [];
    const told: World[] = [];
    const watch = x11Desktop(":4093", { onError: (e) => errors.push(e) }).watch((w) => told.push(w));
    await watch.refresh();
    expect(errors.map(String)).toEqual([expect.stringMatching(/^Error: cannot open the X display :4093: /)]);
    expect(told).toEqual([]);
    watch.stop();
  });

  it("the server going away: the watch says so once, refresh() still answers, and a new watch tries again", async () => {
    const server = await startXServer("800x600x24");
    const errors: unknown[] = [];
    const told: World[] = [];
    const desktop = x11Desktop(server.display, { onError: (e) => errors.push(e) });
    const watch = desktop.watch((w) => told.push(w));
    try {
      await waitFor("the first world", async () => told.length > 0);
      expect(told[0]!.monitors).toHaveLength(1);
    } finally {
      await server.close();
    }
    await waitFor("the loss told", async () => errors.length > 0);
    await watch.refresh();
    expect(errors.map(String)).toEqual(["Error: the X server closed the connection"]);
    const again = desktop.watch(() => {});
    await again.refresh();
    expect(errors).toHaveLength(2);
    expect(String(errors[1])).toMatch(/^Error: cannot open the X display /);
    again.stop();
    watch.stop();
  });
});
