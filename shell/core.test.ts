// The shells' core (core.js), as both shells load it: the one menu table, the host's messages, the page's,
// the drag threshold. The Electron shell's use of it is electron/logic.test.ts; the Linux shell's, the GTK
// tests on a real X desktop (gtk/desktop.test.ts).
import { describe, expect, it } from "vitest";
import { PAGE_RECEIVER, type PageToShell } from "../src/protocol/shell.ts";
import { BUBBLE_GAP, BUBBLE_MAX_HEIGHT, placeBubble } from "./bubble-place.js";
import { type HostToShell, MENU_ACTIONS, type Monitor } from "./contract.ts";
import {
  PAGE_RECEIVER as CORE_RECEIVER,
  type CoreWindow,
  DRAG_SLOP,
  HOST_MESSAGES,
  herMenu,
  MENU,
  type MenuEntry,
  menuOf,
  newState,
  onBounds,
  onCompositor,
  onContextMenu,
  onFocus,
  onHost,
  onHostLine,
  onPage,
  onTray,
  onUserClosed,
  PAGE_MESSAGES,
  pageScript,
  pastSlop,
  pressOnHer,
  trayMenu,
} from "./core.js";

const state = (compositor = true) => newState({ shell: "test", compositor, newWindow: (w: CoreWindow) => w });
const OPEN = {
  type: "open",
  id: "yui",
  title: "Yui",
  url: "http://127.0.0.1:8777/?view=desktop&preset=yui&role=main",
  width: 360,
  height: 560,
} as const;
const rows = (column: "her" | "tray") =>
  MENU.map((r) => (r === null ? null : { action: r.action, label: r[column] }))
    .filter((r) => r?.label !== null)
    // Two separators in a row (what was between them is not in this menu) are one.
    .filter((r, i, all) => r !== null || (i > 0 && all[i - 1] !== null));
const actions = (entries: MenuEntry[]) => entries.map((e) => e?.action ?? null);

describe("the menus: one table", () => {
  it("offers every menu action of the contract once", () => {
    const listed = MENU.flatMap((r) => (r ? [r.action] : []));
    expect([...listed].sort()).toEqual([...MENU_ACTIONS].sort());
  });

  it("builds her menu and the tray's from the table's columns, the toggles saying what they will do", () => {
    for (const which of ["her", "tray"] as const) {
      const built = menuOf(which, true, true);
      expect(actions(built)).toEqual(actions(rows(which) as MenuEntry[]));
      for (const e of built) {
        // The toggles are labelled by their state (below and in the next tests).
        if (!e || e.action === "click-through" || e.action === "hands-free") continue;
        expect(e.label).toBe(MENU.find((r) => r?.action === e.action)?.[which]);
      }
      expect(built.find((e) => e?.action === "click-through")?.label).toBe("Turn click-through off");
      expect(menuOf(which, true, false).find((e) => e?.action === "click-through")?.label).toBe(
        "Turn click-through on",
      );
      // Without a compositor there is no click-through to turn on.
      expect(actions(menuOf(which, false, true))).not.toContain("click-through");
    }
    // Hiding is the tray's alone: a character hidden from her own menu would have no way back.
    expect(actions(menuOf("her", true, true))).not.toContain("hide");
    // Her size is hers: her menu offers the four, the tray none, and no two separators follow each other.
    expect(actions(menuOf("her", true, true))).toEqual(
      expect.arrayContaining(["size-small", "size-medium", "size-large", "size-full"]),
    );
    expect(actions(menuOf("tray", true, true)).filter((a) => a?.startsWith("size-"))).toEqual([]);
    for (const which of ["her", "tray"] as const)
      expect(
        actions(menuOf(which, true, true))
          .map((a) => a ?? "-")
          .join(),
      ).not.toContain("-,-");
  });

  it("labels her menu by her window and the tray's by every character window", () => {
    const s = state();
    onHost(s, OPEN);
    onHost(s, { ...OPEN, id: "mio", title: "Mio" });
    onHost(s, { type: "click-through", id: "yui", enabled: false });
    const label = (m: MenuEntry[]) => m.find((e) => e?.action === "click-through")?.label;
    expect(label(herMenu(s, s.windows.get("yui")!))).toBe("Turn click-through on");
    expect(label(herMenu(s, s.windows.get("mio")!))).toBe("Turn click-through off");
    expect(label(trayMenu(s))).toBe("Turn click-through off");
    onHost(s, { type: "click-through", id: "mio", enabled: false });
    expect(label(trayMenu(s))).toBe("Turn click-through on");
  });

  it("labels the hands-free entry of both menus by what the host says of listening", () => {
    const s = state();
    onHost(s, OPEN);
    const label = (m: MenuEntry[]) => m.find((e) => e?.action === "hands-free")?.label;
    expect(label(trayMenu(s))).toBe("Listen hands-free");
    expect(label(herMenu(s, s.windows.get("yui")!))).toBe("Listen hands-free");
    // The tray's menu is relabelled at once; her menu is built when it opens.
    expect(onHost(s, { type: "hands-free", enabled: true })).toEqual([{ do: "tray", entries: trayMenu(s) }]);
    expect(label(trayMenu(s))).toBe("Stop listening (hands-free)");
    expect(label(herMenu(s, s.windows.get("yui")!))).toBe("Stop listening (hands-free)");
    onHost(s, { type: "hands-free", enabled: false });
    expect(label(trayMenu(s))).toBe("Listen hands-free");
  });
});

describe("the host's messages", () => {
  it("has one entry for each host → shell type of the contract", () => {
    const types: { [K in HostToShell["type"]]: true } = {
      open: true,
      close: true,
      move: true,
      resize: true,
      above: true,
      title: true,
      "click-through": true,
      input: true,
      talk: true,
      "hands-free": true,
      visible: true,
      capture: true,
      quit: true,
      status: true,
    };
    expect(Object.keys(HOST_MESSAGES).sort()).toEqual(Object.keys(types).sort());
  });

  it("opens a window with an empty input shape, and turns click-through off to the whole window", () => {
    const s = state();
    const opened = onHost(s, OPEN);
    expect(opened.slice(0, 3)).toEqual([
      expect.objectContaining({ do: "create", id: "yui", transparent: true, ordinary: false }),
      { do: "shape", id: "yui", rects: [] },
      { do: "host", message: { type: "shape", id: "yui", rects: 0 } },
    ]);
    expect(opened[3]).toEqual({ do: "tray", entries: trayMenu(s) });
    expect(onHost(s, { type: "click-through", id: "yui", enabled: false }).slice(0, 2)).toEqual([
      { do: "shape", id: "yui", rects: null },
      { do: "host", message: { type: "shape", id: "yui", rects: 1 } },
    ]);
    expect(onHost(s, OPEN)).toEqual([{ do: "raise", id: "yui", title: "Yui" }]);
  });

  it("resizes a window and keeps a character window above or not; an ordinary window's focus goes to the host", () => {
    const s = state();
    onHost(s, OPEN);
    onHost(s, { ...OPEN, id: "page:chat", frame: true });
    expect(onHost(s, { type: "resize", id: "yui", width: 198, height: 308 })).toEqual([
      { do: "resize", id: "yui", width: 198, height: 308 },
    ]);
    expect(onHost(s, { type: "above", id: "yui", above: false })).toEqual([
      { do: "above", id: "yui", above: false },
    ]);
    // An ordinary window is never kept above.
    expect(onHost(s, { type: "above", id: "page:chat", above: true })).toEqual([]);
    expect(onFocus(s, "page:chat", true)).toEqual([
      { do: "host", message: { type: "focus", id: "page:chat", focused: true } },
    ]);
    expect(onFocus(s, "yui", true)).toEqual([]);
  });

  it("logs a line that is not JSON or not a contract message, and ignores windows it does not hold", () => {
    const s = state();
    expect(onHostLine(s, "hello")).toEqual([{ do: "log", text: "not JSON: hello" }]);
    expect(onHostLine(s, '{"type":"dance"}')).toEqual([{ do: "log", text: "unknown message dance" }]);
    expect(onHostLine(s, '{"type":"move","id":"nobody","x":1,"y":2}')).toEqual([]);
  });
});

describe("the page", () => {
  it("has one entry for each page → shell type of the contract, and ignores any other", () => {
    const types: { [K in PageToShell["type"]]: true } = {
      hello: true,
      shape: true,
      bubble: true,
      face: true,
      "bubble-size": true,
      "bubble-action": true,
    };
    expect(Object.keys(PAGE_MESSAGES).sort()).toEqual(Object.keys(types).sort());
    const s = state();
    onHost(s, OPEN);
    expect(onPage(s, "yui", '{"type":"toString"}')).toEqual([]);
    expect(onPage(s, "yui", '{"type":"dance"}')).toEqual([]);
  });

  it("answers hello with the shell's state, takes a shape's clean rectangles, and reaches the page's receiver", () => {
    const s = state();
    onHost(s, OPEN);
    expect(onPage(s, "yui", '{"type":"hello"}')).toEqual([
      {
        do: "page",
        id: "yui",
        message: {
          type: "shell",
          shell: "test",
          compositor: true,
          wayland: false,
          bubbles: false,
        },
      },
    ]);
    const shape = onPage(s, "yui", JSON.stringify({ type: "shape", rects: [[1.4, 2, 3, 4], "x"], drag: [] }));
    expect(shape[0]).toEqual({ do: "shape", id: "yui", rects: [[1, 2, 3, 4]] });
    expect(onPage(s, "yui", "{not json")).toEqual([]);
    expect(CORE_RECEIVER).toBe(PAGE_RECEIVER);
    expect(pageScript({ type: "open-input" })).toBe(
      `window.${PAGE_RECEIVER} && window.${PAGE_RECEIVER}({"type":"open-input"})`,
    );
  });

  it("tells the host and every page when a compositor stops", () => {
    const s = state();
    onHost(s, OPEN);
    expect(onCompositor(s, false)).toEqual([
      { do: "host", message: { type: "compositor", compositor: false } },
      {
        do: "page",
        id: "yui",
        message: {
          type: "shell",
          shell: "test",
          compositor: false,
          wayland: false,
          bubbles: false,
        },
      },
    ]);
  });
});

describe("the pointer", () => {
  it("drags from a main-button press on her drag area once it moved DRAG_SLOP pixels", () => {
    const s = state();
    onHost(s, OPEN);
    onPage(s, "yui", JSON.stringify({ type: "shape", rects: [[10, 10, 50, 50]], drag: [[10, 10, 50, 50]] }));
    const w = s.windows.get("yui")!;
    expect(pressOnHer(w, true, 20, 20)).toBe(true);
    expect(pressOnHer(w, false, 20, 20)).toBe(false);
    expect(pressOnHer(w, true, 5, 5)).toBe(false);
    expect(DRAG_SLOP).toBe(5);
    expect(pastSlop({ x: 0, y: 0 }, { x: 2, y: 2 })).toBe(false);
    expect(pastSlop({ x: 0, y: 0 }, { x: 3, y: -2 })).toBe(true);
    // Her menu on her, not beside her while click-through is on.
    expect(onContextMenu(s, "yui", 5, 5)).toEqual([]);
    expect(onContextMenu(s, "yui", 20, 20)).toEqual([{ do: "menu", id: "yui", entries: herMenu(s, w) }]);
  });
});

describe("her bubble", () => {
  const SCREEN: Monitor[] = [
    {
      index: 0,
      name: "A",
      primary: true,
      geometry: { x: 0, y: 0, width: 1280, height: 800 },
      workarea: { x: 0, y: 30, width: 1280, height: 770 },
    },
  ];
  const overlaps = (a: { x: number; y: number; width: number; height: number }, b: typeof a) =>
    a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  const inside = (a: { x: number; y: number; width: number; height: number }) =>
    a.x >= 0 && a.y >= 30 && a.x + a.width <= 1280 && a.y + a.height <= 800;

  it("goes above her head where there is room, else beside her face, else below, never over it, inside the work area", () => {
    const size = { width: 280, height: 90 };
    const face = { x: 600, y: 400, width: 60, height: 60 };
    expect(placeBubble(face, size, SCREEN)).toEqual({
      x: 490,
      y: 400 - BUBBLE_GAP - 90,
      width: 280,
      height: 90,
      side: "above",
    });
    // Sitting near the top: her head under the work area's top edge, the bubble beside her face.
    const high = { x: 600, y: 50, width: 60, height: 60 };
    expect(placeBubble(high, size, SCREEN)).toMatchObject({ side: "right", x: 660 + BUBBLE_GAP });
    // Near the right edge and the top: on her left.
    const corner = { x: 1200, y: 40, width: 60, height: 60 };
    expect(placeBubble(corner, size, SCREEN)).toMatchObject({ side: "left", x: 1200 - BUBBLE_GAP - 280 });
    for (const f of [face, high, corner, { x: 0, y: 30, width: 60, height: 60 }]) {
      for (const h of [40, 90, 400, 2000]) {
        const p = placeBubble(f, { width: 280, height: h }, SCREEN);
        expect(overlaps(p, f), JSON.stringify([f, h, p])).toBe(false);
        expect(inside(p), JSON.stringify([f, h, p])).toBe(true);
      }
    }
    // A long reply: BUBBLE_MAX_HEIGHT tall at most (its text scrolls), above her head when that fits.
    expect(placeBubble(face, { width: 280, height: 2000 }, SCREEN)).toMatchObject({
      side: "above",
      height: BUBBLE_MAX_HEIGHT,
    });
    // Less room than that everywhere: the side with the most, made shorter.
    const tiny: Monitor[] = [{ ...SCREEN[0]!, workarea: { x: 0, y: 30, width: 400, height: 200 } }];
    const squeezed = placeBubble(
      { x: 170, y: 100, width: 60, height: 60 },
      { width: 280, height: 2000 },
      tiny,
    );
    expect(squeezed.height).toBeLessThan(BUBBLE_MAX_HEIGHT);
    expect(squeezed.y + squeezed.height).toBeLessThanOrEqual(230);
  });

  it("makes her bubble's window with hers, places it once its size is known, follows her, hides and goes with her", () => {
    const s = newState({ shell: "test", monitors: SCREEN, bubbleUrl: "file:///b.html", newWindow: (w) => w });
    expect(onHost(s, { ...OPEN, x: 500, y: 200 })).toContainEqual(
      expect.objectContaining({ do: "create", id: "bubble:yui", url: "file:///b.html", bubble: true }),
    );
    onBounds(s, "yui", { x: 500, y: 200, width: 360, height: 560 });
    const bubble = {
      kind: "speech",
      text: "Hello",
      commands: [],
      actions: [],
      streaming: true,
      fading: false,
    } as const;
    // Made (hidden) with her window; her page's first words are handed to it.
    expect(s.windows.get("bubble:yui")?.visible).toBe(false);
    const first = onPage(s, "yui", JSON.stringify({ type: "bubble", bubble }));
    expect(first).toEqual([{ do: "page", id: "bubble:yui", message: { type: "bubble-show", bubble } }]);
    onPage(s, "yui", JSON.stringify({ type: "face", rect: [150, 40, 60, 70] }));
    const placed = onPage(s, "bubble:yui", JSON.stringify({ type: "bubble-size", width: 200, height: 50 }));
    const face = { x: 650, y: 240, width: 60, height: 70 };
    const at = { x: 580, y: 240 - BUBBLE_GAP - 50, width: 200, height: 50 };
    expect(placed).toEqual([
      { do: "show", id: "bubble:yui", focus: false },
      { do: "place", id: "bubble:yui", ...at },
      { do: "shape", id: "bubble:yui", rects: [[0, 0, 200, 50]] },
      {
        do: "host",
        message: {
          type: "bubble",
          id: "yui",
          ...at,
          face,
          side: "above",
          kind: "speech",
          tail: "Hello",
          commands: [],
          end: true,
        },
      },
    ]);
    // She walks 100 px left: her bubble follows; the same place again changes nothing.
    expect(onBounds(s, "yui", { x: 400, y: 200, width: 360, height: 560 })[0]).toEqual({
      do: "place",
      id: "bubble:yui",
      ...at,
      x: 480,
    });
    expect(onBounds(s, "yui", { x: 400, y: 200, width: 360, height: 560 })).toEqual([]);
    // Its buttons: Chat and Settings to the host as her menu's, Dismiss to her page.
    expect(onPage(s, "bubble:yui", '{"type":"bubble-action","action":"chat"}')).toEqual([
      { do: "host", message: { type: "menu", id: "yui", action: "chat" } },
    ]);
    expect(onPage(s, "bubble:yui", '{"type":"bubble-action","action":"dismiss"}')).toEqual([
      { do: "page", id: "yui", message: { type: "bubble-action", action: "dismiss" } },
    ]);
    // The bubble's page cannot set shapes or bubbles of its own.
    expect(onPage(s, "bubble:yui", JSON.stringify({ type: "bubble", bubble }))).toEqual([]);
    expect(onPage(s, "yui", JSON.stringify({ type: "bubble", bubble: null }))).toEqual([
      { do: "hide", id: "bubble:yui" },
      {
        do: "host",
        message: { type: "bubble", id: "yui", x: 0, y: 0, width: 0, height: 0, face: null, side: "none" },
      },
    ]);
    expect(onUserClosed(s, "yui")).toContainEqual({ do: "destroy", id: "bubble:yui" });
  });

  it("puts the app's lasting sign first in the tray's menu until the host clears it", () => {
    const s = state();
    expect(onHost(s, { type: "status", warning: "No backend answers" })[0]).toEqual({
      do: "status",
      warning: "No backend answers",
    });
    expect(trayMenu(s).slice(0, 2)).toEqual([
      { action: "settings", label: "No backend answers: open Settings" },
      null,
    ]);
    onHost(s, { type: "status", warning: null });
    expect(trayMenu(s)).toEqual(menuOf("tray", true, false));
  });
});

describe("the tray", () => {
  it("tells every character page whether a tray shows the icon once the shell knows", () => {
    const s = state();
    onHost(s, OPEN);
    onHost(s, { ...OPEN, id: "page:chat", frame: true });
    expect(onTray(s, false)).toEqual([
      {
        do: "page",
        id: "yui",
        message: {
          type: "shell",
          shell: "test",
          compositor: true,
          wayland: false,
          bubbles: false,
          tray: false,
        },
      },
    ]);
  });
});
