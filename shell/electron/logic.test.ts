// The Electron shell's decisions (logic.ts), without Electron: every host → shell message, the page's
// messages, hit-testing and dragging, the menus, the monitors, the shortcut's syntax and capture's plan.
import { describe, expect, it } from "vitest";
import type { HostToShell, Monitor } from "../contract.ts";
import { menuOf } from "../core.js";
import { cleanRects, placeOnVisible } from "../geometry.js";
import {
  type Action,
  capturePlan,
  type DisplayInfo,
  electronAccelerator,
  HOST_MESSAGES,
  herMenu,
  hoverWatched,
  monitorIndexOf,
  monitorsFromDisplays,
  newState,
  onContextMenu,
  onHost,
  onHostLine,
  onHover,
  onLoaded,
  onMonitors,
  onPage,
  onPointer,
  onUserClosed,
  type PointerEvent,
  readyMessage,
  type ShellState,
  trayIconBitmap,
  trayMenu,
} from "./logic.ts";

const MONITORS: Monitor[] = [
  {
    index: 0,
    name: "Built-in Retina Display",
    primary: true,
    geometry: { x: 0, y: 0, width: 1512, height: 982 },
    workarea: { x: 0, y: 38, width: 1512, height: 944 },
  },
  {
    index: 1,
    name: "DELL U2720Q",
    primary: false,
    geometry: { x: 1512, y: -200, width: 1920, height: 1080 },
    workarea: { x: 1512, y: -175, width: 1920, height: 1055 },
  },
];

const OPEN: Extract<HostToShell, { type: "open" }> = {
  type: "open",
  id: "yui",
  title: "Yui",
  url: "http://127.0.0.1:8777/?view=desktop&preset=yui&role=main",
  width: 360,
  height: 560,
  x: 1136,
  y: 406,
};

/** One message of every host → shell type; tsc rejects this table when the contract gains or loses one. */
const EVERY_HOST_MESSAGE: { [K in HostToShell["type"]]: Extract<HostToShell, { type: K }> } = {
  open: OPEN,
  close: { type: "close", id: "yui" },
  move: { type: "move", id: "yui", x: 10, y: 20 },
  resize: { type: "resize", id: "yui", width: 198, height: 308 },
  above: { type: "above", id: "yui", above: false },
  title: { type: "title", id: "yui", title: "Yui-chan" },
  "click-through": { type: "click-through", id: "yui", enabled: false },
  input: { type: "input", id: "yui" },
  talk: { type: "talk", id: "yui", down: true },
  "hands-free": { type: "hands-free", enabled: true },
  visible: { type: "visible", id: "yui", visible: false },
  capture: { type: "capture", req: 7, x: 0, y: 0, width: 100, height: 50 },
  quit: { type: "quit" },
  status: { type: "status", warning: "No backend answers" },
};

function withWindow(): ShellState {
  const s = newState({ monitors: MONITORS });
  onHost(s, OPEN);
  return s;
}

const ev = (
  kind: PointerEvent["kind"],
  x: number,
  y: number,
  cursor = { x: 0, y: 0 },
  button = 0,
): PointerEvent => ({
  kind,
  x,
  y,
  button,
  cursor,
  win: { x: 1136, y: 406 },
});

describe("host → shell", () => {
  it("lists every contract message type once, and each one does something", () => {
    expect(Object.keys(HOST_MESSAGES).sort()).toEqual(Object.keys(EVERY_HOST_MESSAGE).sort());
    for (const m of Object.values(EVERY_HOST_MESSAGE)) {
      const s = m.type === "open" ? newState({ monitors: MONITORS }) : withWindow();
      const actions = onHost(s, m);
      expect(actions.length, m.type).toBeGreaterThan(0);
      expect(actions.some((a) => a.do === "log")).toBe(false);
      // The same through a stdin line.
      const s2 = m.type === "open" ? newState({ monitors: MONITORS }) : withWindow();
      expect(onHostLine(s2, JSON.stringify(m))).toEqual(actions);
    }
  });

  it("open: a transparent, click-through window that takes no click until the page reports her shape", () => {
    const s = newState({ monitors: MONITORS });
    const actions = onHost(s, OPEN);
    expect(actions).toEqual<Action[]>([
      {
        do: "create",
        id: "yui",
        title: "Yui",
        url: OPEN.url,
        width: 360,
        height: 560,
        x: 1136,
        y: 406,
        ordinary: false,
        transparent: true,
      },
      { do: "mouse", id: "yui", ignore: true },
      { do: "host", message: { type: "shape", id: "yui", rects: 0 } },
      { do: "tray", entries: trayMenu(s) },
    ]);
    expect(s.windows.get("yui")).toMatchObject({ clickThrough: true, takesInput: false, ordinary: false });
  });

  it("open with frame: an ordinary window with an opaque page that takes every click", () => {
    const s = newState({ monitors: MONITORS });
    const actions = onHost(s, {
      type: "open",
      id: "page:settings",
      title: "Settings",
      url: "http://127.0.0.1:8777/?view=settings",
      width: 1000,
      height: 800,
      frame: true,
    });
    expect(actions[0]).toEqual({
      do: "create",
      id: "page:settings",
      title: "Settings",
      url: "http://127.0.0.1:8777/?view=settings&opaque=1",
      width: 1000,
      height: 800,
      ordinary: true,
      transparent: false,
    });
    expect(actions).toContainEqual({ do: "host", message: { type: "shape", id: "page:settings", rects: 1 } });
    expect(actions.some((a) => a.do === "mouse")).toBe(false);
  });

  it("open without a compositor: framed and opaque (opaque=1), the whole window takes input", () => {
    const s = newState({ compositor: false });
    const actions = onHost(s, { ...OPEN, x: undefined, y: undefined });
    expect(actions[0]).toMatchObject({ transparent: false, ordinary: false, url: `${OPEN.url}&opaque=1` });
    expect(actions[0]).not.toHaveProperty("x");
    expect(s.windows.get("yui")!.clickThrough).toBe(false);
  });

  it("open at a place on no monitor moves her into the primary work area; open again raises", () => {
    const s = newState({ monitors: MONITORS });
    expect(onHost(s, { ...OPEN, x: 5000, y: 3000 })[0]).toMatchObject({ x: 1512 - 360, y: 982 - 560 });
    expect(onHost(s, { ...OPEN, title: "Yui 2" })).toEqual([{ do: "raise", id: "yui", title: "Yui 2" }]);
  });

  it("close destroys without a closed message; unknown ids are ignored", () => {
    const s = withWindow();
    const actions = onHost(s, { type: "close", id: "yui" });
    expect(actions[0]).toEqual({ do: "destroy", id: "yui" });
    expect(actions.some((a) => a.do === "host")).toBe(false);
    expect(onHost(s, { type: "close", id: "yui" })).toEqual([]);
    expect(onHost(s, { type: "move", id: "nobody", x: 1, y: 2 })).toEqual([]);
    expect(onHost(s, { type: "input", id: "nobody" })).toEqual([]);
  });

  it("click-through off: the whole window takes input (one rectangle); on again: only her shape", () => {
    const s = withWindow();
    onPage(
      s,
      "yui",
      JSON.stringify({ type: "shape", rects: [[100, 200, 80, 300]], drag: [[100, 200, 80, 300]] }),
    );
    const off = onHost(s, { type: "click-through", id: "yui", enabled: false });
    expect(off.slice(0, 2)).toEqual([
      { do: "mouse", id: "yui", ignore: false },
      { do: "host", message: { type: "shape", id: "yui", rects: 1 } },
    ]);
    expect(off[2]).toMatchObject({ do: "tray" });
    expect(trayMenu(s)).toContainEqual({ action: "click-through", label: "Turn click-through on" });
    const on = onHost(s, { type: "click-through", id: "yui", enabled: true });
    expect(on.slice(0, 2)).toEqual([
      { do: "mouse", id: "yui", ignore: true },
      { do: "host", message: { type: "shape", id: "yui", rects: 1 } },
    ]);
    expect(trayMenu(s)).toContainEqual({ action: "click-through", label: "Turn click-through off" });
  });

  it("input shows and focuses her window, then opens her input; visible hides and shows without focus", () => {
    const s = withWindow();
    expect(onHost(s, { type: "input", id: "yui" })).toEqual([
      { do: "show", id: "yui", focus: true },
      { do: "page", id: "yui", message: { type: "open-input" } },
    ]);
    expect(onHost(s, { type: "visible", id: "yui", visible: false })).toEqual([{ do: "hide", id: "yui" }]);
    expect(onHost(s, { type: "visible", id: "yui", visible: true })).toEqual([
      { do: "show", id: "yui", focus: false },
    ]);
  });

  it("capture, quit; a line that is not JSON or not a contract message is logged", () => {
    const s = withWindow();
    expect(onHost(s, { type: "capture", req: 3, x: 1, y: 2, width: 30, height: 40 })).toEqual([
      { do: "capture", req: 3, rect: { x: 1, y: 2, width: 30, height: 40 } },
    ]);
    expect(onHost(s, { type: "quit" })).toEqual([{ do: "quit" }]);
    expect(onHostLine(s, "hello")).toEqual([{ do: "log", text: "not JSON: hello" }]);
    expect(onHostLine(s, '{"type":"dance"}')).toEqual([{ do: "log", text: "unknown message dance" }]);
    expect(onHostLine(s, '{"type":"toString"}')).toEqual([{ do: "log", text: "unknown message toString" }]);
  });
});

describe("page → shell", () => {
  it("hello answers which shell this is; so does a finished load", () => {
    const s = withWindow();
    const shell = {
      type: "shell",
      shell: "electron",
      compositor: true,
      wayland: false,
      bubbles: false,
    };
    expect(onPage(s, "yui", '{"type":"hello"}')).toEqual([{ do: "page", id: "yui", message: shell }]);
    expect(onLoaded(s, "yui")).toEqual([{ do: "page", id: "yui", message: shell }]);
    expect(onPage(s, "yui", "{not json")).toEqual([]);
    expect(onPage(s, "nobody", '{"type":"hello"}')).toEqual([]);
  });

  it("shape: cleaned rectangles, the count reported to the host", () => {
    const s = withWindow();
    const actions = onPage(
      s,
      "yui",
      JSON.stringify({ type: "shape", rects: [[0.4, 1.6, 10, 10], [1, 2, 0, 5], "x", [1, 2, 3]], drag: [] }),
    );
    expect(s.windows.get("yui")!.shape).toEqual([[0, 2, 10, 10]]);
    expect(actions).toEqual([{ do: "host", message: { type: "shape", id: "yui", rects: 1 } }]);
    expect(cleanRects("nope")).toEqual([]);
  });
});

describe("the pointer: click-through and drag", () => {
  const SHAPE = JSON.stringify({ type: "shape", rects: [[100, 200, 80, 300]], drag: [[100, 200, 80, 300]] });

  it("takes input over her shape and lets clicks through elsewhere, acting only on a change", () => {
    const s = withWindow();
    onPage(s, "yui", SHAPE);
    expect(onPointer(s, "yui", ev("move", 10, 10))).toEqual([]);
    expect(onPointer(s, "yui", ev("move", 120, 250))).toEqual([{ do: "mouse", id: "yui", ignore: false }]);
    expect(onPointer(s, "yui", ev("move", 121, 251))).toEqual([]);
    expect(onPointer(s, "yui", ev("move", 300, 250))).toEqual([{ do: "mouse", id: "yui", ignore: true }]);
    onPointer(s, "yui", ev("move", 120, 250));
    expect(onPointer(s, "yui", ev("leave", 120, 250))).toEqual([{ do: "mouse", id: "yui", ignore: true }]);
  });

  it("the polled cursor hit-tests like a forwarded move, never drags, and is polled only over click-through windows", () => {
    const s = withWindow();
    onPage(s, "yui", SHAPE);
    expect(hoverWatched(s)).toEqual(["yui"]);
    expect(onHover(s, "yui", { x: 120, y: 250 })).toEqual([{ do: "mouse", id: "yui", ignore: false }]);
    expect(onHover(s, "yui", { x: 121, y: 250 })).toEqual([]);
    expect(onHover(s, "yui", null)).toEqual([{ do: "mouse", id: "yui", ignore: true }]);
    onPointer(s, "yui", ev("down", 120, 250, { x: 0, y: 0 }));
    expect(onHover(s, "yui", null)).toEqual([]);
    expect(s.windows.get("yui")!.takesInput).toBe(true);
    onPointer(s, "yui", ev("up", 120, 250));
    onHost(s, { type: "click-through", id: "yui", enabled: false });
    expect(hoverWatched(s)).toEqual([]);
    onHost(s, { type: "click-through", id: "yui", enabled: true });
    onHost(s, { type: "visible", id: "yui", visible: false });
    expect(hoverWatched(s)).toEqual([]);
  });

  it("a new shape under a still pointer changes the mode only when the pointer's hit changes", () => {
    const s = withWindow();
    onPage(s, "yui", SHAPE);
    onPointer(s, "yui", ev("move", 120, 250));
    expect(onPage(s, "yui", SHAPE)).toEqual([
      { do: "host", message: { type: "shape", id: "yui", rects: 1 } },
    ]);
    const moved = JSON.stringify({ type: "shape", rects: [[0, 0, 10, 10]], drag: [] });
    expect(onPage(s, "yui", moved)[0]).toEqual({ do: "mouse", id: "yui", ignore: true });
  });

  it("a press and a move of 5 px drags her window with the cursor, then drag-end; the release is no click", () => {
    const s = withWindow();
    onPage(s, "yui", SHAPE);
    onPointer(s, "yui", ev("move", 120, 250, { x: 1256, y: 656 }));
    expect(onPointer(s, "yui", ev("down", 120, 250, { x: 1256, y: 656 }))).toEqual([]);
    expect(onPointer(s, "yui", ev("move", 122, 251, { x: 1258, y: 657 }))).toEqual([]);
    expect(onPointer(s, "yui", ev("move", 123, 252, { x: 1259, y: 658 }))).toEqual([
      { do: "host", message: { type: "drag", id: "yui" } },
      { do: "swallow-click", id: "yui" },
      { do: "position", id: "yui", x: 1139, y: 408 },
    ]);
    expect(onPointer(s, "yui", ev("move", 120, 250, { x: 1056, y: 456 }))).toEqual([
      { do: "position", id: "yui", x: 936, y: 206 },
    ]);
    expect(onPointer(s, "yui", ev("up", 120, 250, { x: 1056, y: 456 }))).toEqual([
      { do: "report", id: "yui", kind: "drag-end" },
    ]);
    expect(s.windows.get("yui")).toMatchObject({ press: null, dragging: null, takesInput: true });
  });

  it("a press outside her drag area, a right button or an ordinary window never drags", () => {
    const s = withWindow();
    onPage(
      s,
      "yui",
      JSON.stringify({ type: "shape", rects: [[0, 0, 400, 600]], drag: [[100, 200, 80, 300]] }),
    );
    onPointer(s, "yui", ev("down", 10, 10, { x: 0, y: 0 }));
    expect(onPointer(s, "yui", ev("move", 60, 60, { x: 50, y: 50 }))).toEqual([]);
    onPointer(s, "yui", ev("up", 60, 60));
    onPointer(s, "yui", ev("down", 120, 250, { x: 0, y: 0 }, 2));
    expect(onPointer(s, "yui", ev("move", 170, 300, { x: 50, y: 50 }))).toEqual([]);
    onHost(s, {
      type: "open",
      id: "page:chat",
      title: "Chat",
      url: "http://h/?view=main",
      width: 9,
      height: 9,
      frame: true,
    });
    onPointer(s, "page:chat", ev("down", 1, 1, { x: 0, y: 0 }));
    expect(onPointer(s, "page:chat", ev("move", 60, 60, { x: 50, y: 50 }))).toEqual([]);
  });
});

describe("menus", () => {
  it("her menu opens on her, anywhere while click-through is off, never in an ordinary window", () => {
    const s = withWindow();
    onPage(
      s,
      "yui",
      JSON.stringify({ type: "shape", rects: [[100, 200, 80, 300]], drag: [[100, 200, 80, 300]] }),
    );
    expect(onContextMenu(s, "yui", 10, 10)).toEqual([]);
    const [menu] = onContextMenu(s, "yui", 120, 250);
    expect(menu).toEqual({ do: "menu", id: "yui", entries: herMenu(s, s.windows.get("yui")!) });
    onHost(s, { type: "click-through", id: "yui", enabled: false });
    expect(onContextMenu(s, "yui", 10, 10)[0]).toMatchObject({ do: "menu" });
    onHost(s, {
      type: "open",
      id: "page:quick",
      title: "Quick",
      url: "http://h/?view=quick",
      width: 9,
      height: 9,
      frame: true,
    });
    expect(onContextMenu(s, "page:quick", 1, 1)).toEqual([]);
  });

  it("her menu and the tray's are the core's table (shell/core.js), as on Linux", () => {
    const s = withWindow();
    const w = s.windows.get("yui")!;
    expect(herMenu(s, w)).toEqual(menuOf("her", true, w.clickThrough));
    expect(trayMenu(s)).toEqual(menuOf("tray", true, true));
    const noCompositor = newState({ compositor: false });
    expect(trayMenu(noCompositor)).toEqual(menuOf("tray", false, false));
  });
});

describe("windows, monitors, ready", () => {
  it("a window the user closed is reported and forgotten", () => {
    const s = withWindow();
    expect(onUserClosed(s, "yui")[0]).toEqual({ do: "host", message: { type: "closed", id: "yui" } });
    expect(s.windows.has("yui")).toBe(false);
    expect(onUserClosed(s, "yui")).toEqual([]);
  });

  it("displays become the contract's monitors; a window whose centre left every work area is moved back", () => {
    const displays: DisplayInfo[] = [
      {
        id: 69733378,
        label: "",
        bounds: MONITORS[0]!.geometry,
        workArea: MONITORS[0]!.workarea,
        scaleFactor: 2,
      },
    ];
    const monitors = monitorsFromDisplays(displays, 69733378);
    expect(monitors).toEqual([{ ...MONITORS[0], name: "monitor 0" }]);
    const s = withWindow();
    onHost(s, { ...OPEN, id: "mio", title: "Mio" });
    const bounds = new Map([
      ["yui", { x: 2000, y: 100, width: 360, height: 560 }],
      ["mio", { x: 100, y: 100, width: 360, height: 560 }],
    ]);
    const actions = onMonitors(s, monitors, bounds);
    expect(actions[0]).toEqual({ do: "host", message: { type: "monitors", monitors } });
    expect(actions.filter((a) => a.do === "position")).toEqual([
      { do: "position", id: "yui", x: 1152, y: 100 },
    ]);
  });

  it("a window's monitor is the one it overlaps most", () => {
    expect(monitorIndexOf({ x: 1400, y: 0, width: 360, height: 560 }, MONITORS)).toBe(1);
    expect(monitorIndexOf({ x: 1300, y: 0, width: 360, height: 560 }, MONITORS)).toBe(0);
    expect(monitorIndexOf({ x: -900, y: 0, width: 360, height: 560 }, MONITORS)).toBe(-1);
    expect(placeOnVisible({ x: 1600, y: 0, width: 360, height: 560 }, MONITORS)).toEqual({ x: 1600, y: 0 });
  });

  it("ready names the shell, the tray and the shortcut in GTK syntax", () => {
    const s = newState({ monitors: MONITORS });
    expect(readyMessage(s, true, "<Ctrl><Alt>y")).toEqual({
      type: "ready",
      shell: "electron",
      compositor: true,
      wayland: false,
      tray: true,
      shortcut: "<Ctrl><Alt>y",
      monitors: MONITORS,
    });
  });
});

describe("the shortcut, capture, the tray icon", () => {
  it("GTK accelerators become Electron accelerators", () => {
    expect(electronAccelerator("<Ctrl><Alt>y")).toBe("Control+Alt+Y");
    expect(electronAccelerator("<Super>y")).toBe("Super+Y");
    expect(electronAccelerator("<Primary><Shift>F12")).toBe("CommandOrControl+Shift+F12");
    expect(electronAccelerator("<Control><Mod1>space")).toBe("Control+Alt+Space");
    expect(electronAccelerator("y")).toBeNull();
    expect(electronAccelerator("<Hyper>y")).toBeNull();
    expect(electronAccelerator("<Ctrl>")).toBeNull();
  });

  it("capture takes the display under the rectangle's centre, clipped, in its own pixels", () => {
    const displays: DisplayInfo[] = MONITORS.map((m, i) => ({
      id: i + 1,
      label: m.name,
      bounds: m.geometry,
      workArea: m.workarea,
      scaleFactor: i === 0 ? 2 : 1,
    }));
    expect(capturePlan(displays, { x: 1400, y: 0, width: 200, height: 100 })).toEqual({
      display: displays[0],
      clip: { x: 1400, y: 0, width: 112, height: 100 },
      pixels: { x: 2800, y: 0, width: 224, height: 200 },
    });
    expect(capturePlan(displays, { x: 2000, y: -100, width: 100, height: 100 })).toMatchObject({
      display: displays[1],
      pixels: { x: 488, y: 100, width: 100, height: 100 },
    });
    expect(capturePlan(displays, { x: 0, y: 0, width: 0, height: 10 })).toEqual({ error: "empty rectangle" });
    expect(capturePlan([], { x: 0, y: 0, width: 1, height: 1 })).toEqual({ error: "no display" });
  });

  it("the tray icon is a BGRA disc of its colour, transparent in the corners", () => {
    const px = trayIconBitmap(32, [0x92, 0x6a, 0xe8]);
    expect(px.length).toBe(32 * 32 * 4);
    expect(px[3]).toBe(0);
    expect([...px.slice((16 * 32 + 16) * 4, (16 * 32 + 16) * 4 + 4)]).toEqual([0x92, 0x6a, 0xe8, 255]);
  });
});
