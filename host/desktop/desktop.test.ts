import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type HostToShell, parseShellLine, type ShellToHost } from "../../shell/contract.ts";
import { openPet, savePreset, setActivePreset } from "../../src/app/presets/presets.ts";
import { DEFAULT_DESKTOP_SETTINGS, SIZES } from "../../src/protocol/body.ts";
import { characterPreset } from "../../src/protocol/preset.ts";
import { openStore, type Store } from "../store/store.ts";
import { desktopUrl, initialPlace, PAGES, pageUrl, WINDOW_SIZE, wantedWindows } from "./desktop.ts";
import { parseDesktopArgs } from "./desktop-cli.ts";
import { desktopSettings, layoutKey, perchWidth, recallPlace, rememberPlace, windowSize } from "./places.ts";
import { asideOf, createRoom, overlaps } from "./room.ts";

let dir = "";
let store: Store | undefined;
afterEach(() => {
  store?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});
const preset = (id: string, name: string) =>
  characterPreset(id, name, { transport: "chat", base_url: "http://127.0.0.1:1/v1" });

describe("the desktop's windows", () => {
  it("are main's character first, then each preset opened as a pet, titled with their names", () => {
    dir = mkdtempSync(join(tmpdir(), "yui-desktop-"));
    store = openStore(dir);
    savePreset(store, preset("yui", "Yui"));
    savePreset(store, preset("mio", "Mio"));
    savePreset(store, preset("rin", "Rin"));
    expect(wantedWindows(store)).toEqual([{ id: "yui", title: "Yui", role: "main" }]);
    openPet(store, "rin");
    openPet(store, "mio");
    expect(wantedWindows(store).map((w) => `${w.id}:${w.role}:${w.title}`)).toEqual([
      "yui:main:Yui",
      "rin:pet:Rin",
      "mio:pet:Mio",
    ]);
    setActivePreset(store, "mio");
    expect(wantedWindows(store).map((w) => `${w.id}:${w.role}`)).toEqual(["mio:main", "rin:pet"]);
  });

  it("load the desktop view of their preset from the host", () => {
    expect(desktopUrl("http://127.0.0.1:8777/", "mio", "pet")).toBe(
      "http://127.0.0.1:8777/?view=desktop&preset=mio&role=pet",
    );
    // YUI's own windows are marked as the desktop app's: no Phone tab (tests/desktop-pages.browser.test.ts).
    expect(Object.values(PAGES).map((p) => pageUrl("http://127.0.0.1:8777/", p.view))).toEqual([
      "http://127.0.0.1:8777/?view=main&app=desktop",
      "http://127.0.0.1:8777/?view=settings&app=desktop",
      "http://127.0.0.1:8777/?view=quick&app=desktop",
    ]);
  });

  it("start side by side in the primary monitor's work area, bottom right, standing on its floor", () => {
    const monitors = [
      {
        index: 0,
        name: "a",
        primary: false,
        geometry: { x: 0, y: 0, width: 800, height: 600 },
        workarea: { x: 0, y: 0, width: 800, height: 600 },
      },
      {
        index: 1,
        name: "b",
        primary: true,
        geometry: { x: 800, y: 0, width: 1920, height: 1080 },
        workarea: { x: 800, y: 0, width: 1920, height: 1040 },
      },
    ];
    const first = initialPlace(0, monitors)!;
    const second = initialPlace(1, monitors)!;
    expect(first).toEqual({ x: 800 + 1920 - WINDOW_SIZE.width - 16, y: 1040 - WINDOW_SIZE.height });
    expect(second.x + WINDOW_SIZE.width).toBeLessThanOrEqual(first.x);
    expect(initialPlace(0, [])).toBeUndefined();
    // At her default size.
    const size = windowSize(DEFAULT_DESKTOP_SETTINGS.scale);
    expect(initialPlace(0, monitors, size)).toEqual({
      x: 800 + 1920 - size.width - 16,
      y: 1040 - size.height,
    });
  });
});

describe("her size and her place", () => {
  it("her default size leaves a laptop screen usable: about a third of a 900 px screen's height", () => {
    const size = windowSize(DEFAULT_DESKTOP_SETTINGS.scale);
    expect(size).toEqual({ width: 198, height: 308 });
    expect(size.height / 900).toBeGreaterThan(0.3);
    expect(size.height / 900).toBeLessThan(0.36);
    // Her menu's and Settings' sizes, scale 1 being the window she had before (360×560).
    expect(SIZES.map((x) => windowSize(x.scale).height)).toEqual([224, 308, 420, 560]);
    expect(perchWidth(1)).toBe(120);
    expect(perchWidth(0.55)).toBe(66);
  });

  it("is remembered per character and monitor layout, the newest eight layouts kept", () => {
    dir = mkdtempSync(join(tmpdir(), "yui-desktop-"));
    store = openStore(dir);
    const one = layoutKey([{ x: 0, y: 0, width: 1920, height: 1200 }]);
    const two = layoutKey([
      { x: 1920, y: 0, width: 1280, height: 1024 },
      { x: 0, y: 0, width: 1920, height: 1200 },
    ]);
    expect(two).toBe("0,0,1920x1200;1920,0,1280x1024");
    expect(recallPlace(store, "yui", one)).toBeNull();
    rememberPlace(store, "yui", one, { x: 400.4, y: 1160 });
    rememberPlace(store, "yui", two, { x: 2500, y: 1024 });
    rememberPlace(store, "mio", one, { x: 900, y: 700 });
    expect(recallPlace(store, "yui", one)).toEqual({ x: 400, y: 1160 });
    expect(recallPlace(store, "yui", two)).toEqual({ x: 2500, y: 1024 });
    expect(recallPlace(store, "mio", one)).toEqual({ x: 900, y: 700 });
    for (let i = 0; i < 8; i++) rememberPlace(store, "yui", `layout-${i}`, { x: i, y: i });
    expect(recallPlace(store, "yui", one)).toBeNull();
    expect(recallPlace(store, "yui", "layout-7")).toEqual({ x: 7, y: 7 });
    expect(desktopSettings(store, "yui")).toEqual({ scale: 0.55, wander: true });
  });
});

describe("room for YUI's windows", () => {
  const area = { x: 0, y: 0, width: 1920, height: 1160 };
  it("a character over a focused window of YUI's steps to its nearer side with room, or has none", () => {
    const page = { x: 600, y: 100, width: 800, height: 700 };
    expect(overlaps({ x: 1300, y: 852, width: 198, height: 308 }, page)).toBe(false);
    expect(overlaps({ x: 1200, y: 500, width: 198, height: 308 }, page)).toBe(true);
    // Nearer the right side: x 1408; nearer the left: 600 - 8 - 198.
    expect(asideOf({ x: 1200, y: 500, width: 198, height: 308 }, page, area)).toBe(1408);
    expect(asideOf({ x: 700, y: 500, width: 198, height: 308 }, page, area)).toBe(394);
    // A page as wide as the work area leaves no side: she drops below it.
    expect(
      asideOf({ x: 700, y: 500, width: 198, height: 308 }, { ...page, x: 100, width: 1750 }, area),
    ).toBeNull();
  });
  it("over the shell's reports: a pet steps aside and back, a character with no side drops below, and a body walks", async () => {
    const listeners = new Set<(m: ShellToHost) => void>();
    const sent: HostToShell[] = [];
    const shell = {
      send: (m: HostToShell) => void sent.push(m),
      on(fn: (m: ShellToHost) => void) {
        listeners.add(fn);
        return () => listeners.delete(fn);
      },
    };
    const tell = (m: ShellToHost) => {
      for (const fn of listeners) fn(m);
    };
    const steps: [string, number | null][] = [];
    const room = createRoom({
      shell,
      isCharacter: (id) => !id.startsWith("page:"),
      monitors: () => [
        {
          index: 0,
          name: "a",
          primary: true,
          geometry: { x: 0, y: 0, width: 1920, height: 1200 },
          workarea: area,
        },
      ],
      // "yui" has a body that walks; "mio" has none (her window is moved).
      stepAside: (id, x) => {
        if (id !== "yui") return null;
        steps.push([id, x]);
        return true;
      },
    });
    const at = (id: string, x: number, y: number, width: number, height: number) =>
      tell({ type: "geometry", id, x, y, width, height, monitor: 0 });
    at("yui", 1200, 852, 198, 308);
    at("mio", 700, 852, 198, 308);
    at("page:chat", 600, 100, 800, 900);
    tell({ type: "focus", id: "page:chat", focused: true });
    expect(steps).toEqual([["yui", 1408]]);
    expect(sent).toEqual([{ type: "move", id: "mio", x: 394, y: 852 }]);
    // The chat grows over the whole width: no side has room now; both drop below it.
    at("mio", 394, 852, 198, 308);
    at("yui", 1408, 852, 198, 308);
    at("page:chat", 0, 100, 1900, 900);
    expect(sent.slice(1)).toEqual([
      { type: "above", id: "yui", above: false },
      { type: "above", id: "mio", above: false },
    ]);
    // The focus leaves YUI's windows: each comes back.
    tell({ type: "focus", id: "page:chat", focused: false });
    await new Promise((r) => setTimeout(r, 500));
    expect(steps.at(-1)).toEqual(["yui", null]);
    expect(sent.slice(3)).toEqual([
      { type: "above", id: "yui", above: true },
      { type: "above", id: "mio", above: true },
      { type: "move", id: "mio", x: 700, y: 852 },
    ]);
    room.dispose();
  });
});

describe("yui desktop's arguments and the shell's lines", () => {
  it("takes --port and refuses anything else", () => {
    expect(parseDesktopArgs([])).toEqual({ port: 8777 });
    expect(parseDesktopArgs(["--port", "0"])).toEqual({ port: 0 });
    expect(parseDesktopArgs(["--port=9000"])).toEqual({ port: 9000 });
    expect(() => parseDesktopArgs(["--port", "x"])).toThrow("--port needs a number from 0 to 65535 (got x)");
    expect(() => parseDesktopArgs(["--no-open"])).toThrow("unknown option --no-open");
  });

  it("reads contract messages and leaves log lines and malformed messages out", () => {
    expect(parseShellLine('{"type":"drag","id":"yui"}')).toEqual({ type: "drag", id: "yui" });
    expect(parseShellLine("Gtk-WARNING: something")).toBeNull();
    expect(parseShellLine('{"type":"drag"}')).toBeNull();
    expect(parseShellLine('{"type":"nope","id":"x"}')).toBeNull();
  });
});
