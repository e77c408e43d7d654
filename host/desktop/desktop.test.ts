import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { parseShellLine } from "../../shell/contract.ts";
import { openPet, savePreset, setActivePreset } from "../../src/app/presets/presets.ts";
import { characterPreset } from "../../src/protocol/preset.ts";
import { openStore, type Store } from "../store/store.ts";
import { desktopUrl, initialPlace, WINDOW_SIZE, wantedWindows } from "./desktop.ts";
import { parseDesktopArgs } from "./desktop-cli.ts";

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
  });

  it("start side by side in the primary monitor's work area, bottom right", () => {
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
    expect(first).toEqual({ x: 800 + 1920 - WINDOW_SIZE.width - 16, y: 1040 - WINDOW_SIZE.height - 16 });
    expect(second.x + WINDOW_SIZE.width).toBeLessThanOrEqual(first.x);
    expect(initialPlace(0, [])).toBeUndefined();
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
