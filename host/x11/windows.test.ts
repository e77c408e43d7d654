// Against a real Xvfb + openbox desktop with two RandR monitors and real xterm/xclock windows.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chooseSitTarget } from "../../src/body/perch.ts";
import type { World } from "../../src/body/world.ts";
import { startXSession, untilWorld, waitFor, type XSession } from "./testing.ts";
import { watchWorld, type XRun, xRunner } from "./windows.ts";

let s: XSession;
let run: XRun;
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
const until = (what: string, pred: (w: World) => boolean) => untilWorld(run, what, pred);

beforeAll(async () => {
  s = await startXSession();
  run = xRunner(s.display);
  ids.xterm = await startClient(["xterm", "-geometry", "80x24+100+100", "-title", "term one ✓"], "XTerm");
  ids.xclock = await startClient(["xclock", "-geometry", "200x200+2100+300"], "XClock");
  ids.hers = await startClient(["xterm", "-class", "YUI", "-geometry", "40x10+600+600"], "YUI");
});
afterAll(async () => {
  await s?.close();
});

describe("readWorld under openbox with two monitors", () => {
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
  });

  it("watchWorld with the spy reads at once on X events (polling set to 10 min)", async () => {
    const seen: World[] = [];
    const watch = watchWorld(run, (w) => seen.push(w), { intervalMs: 600_000, spy: { display: s.display } });
    try {
      await waitFor("first reading", async () => seen.length > 0);
      s.start(["xclock", "-geometry", "100x100+1500+500", "-title", "spied"]);
      await waitFor("the new window", async () =>
        seen.some((w) => w.windows.some((x) => x.title === "spied")),
      );
      const id = seen.flatMap((w) => w.windows).find((x) => x.title === "spied")!.id;
      await s.x("wmctrl", ["-i", "-c", id]);
      await waitFor(
        "its close",
        async () => !seen[seen.length - 1]!.windows.some((x) => x.title === "spied"),
      );
    } finally {
      watch.stop();
    }
  });

  it("watchWorld reports a move and a close", async () => {
    const seen: World[] = [];
    const watch = watchWorld(run, (w) => seen.push(w), { intervalMs: 100 });
    try {
      await waitFor("first reading", async () => seen.length > 0);
      await s.x("xdotool", ["windowmove", ids.xterm!, "2000", "500"]);
      await waitFor("the move", async () => seen.some((w) => w.windows[0]?.rect.x === 2000));
      await s.x("wmctrl", ["-i", "-c", ids.xterm!]);
      await waitFor("the close", async () => seen[seen.length - 1]!.windows.length === 0);
    } finally {
      watch.stop();
    }
  });
});
