/**
 * The global hold key on a real X server (Xvfb), pressed and let go by xdotool (XTEST): its press and release,
 * with Num Lock and Caps Lock on, through the server's auto-repeat, and refused when another program holds it.
 */
import { execFile } from "node:child_process";
import { startXServer, waitFor } from "@yui/mod-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectX, type XConnection } from "./connection.ts";
import { type HeldKey, holdKey, parseAccelerator } from "./hold-key.ts";

let server: Awaited<ReturnType<typeof startXServer>>;
let x: XConnection;
let key: HeldKey;
const seen: string[] = [];
/** Every press and release of the key's keycode the connection received (the auto-repeat's included). */
let rawPresses = 0;
let rawReleases = 0;

const xdo = (...args: string[]) =>
  new Promise<string>((resolve, reject) =>
    execFile("xdotool", args, { env: server.env, timeout: 10_000 }, (err, out, stderr) =>
      err ? reject(new Error(`xdotool ${args.join(" ")}: ${stderr}`)) : resolve(out),
    ),
  );
const xset = (...args: string[]) =>
  new Promise<void>((resolve, reject) =>
    execFile("xset", args, { env: server.env, timeout: 10_000 }, (err) => (err ? reject(err) : resolve())),
  );

beforeAll(async () => {
  server = await startXServer("640x480x24");
  x = await connectX(server.display);
  key = await holdKey(x, "<Ctrl><Alt>space", { down: () => seen.push("down"), up: () => seen.push("up") });
  const space = (await x.keyboard()).keysyms.findIndex((row) => row[0] === 0x20) + (await x.keyboard()).min;
  x.onEvent((e) => {
    if (e.name === "KeyPress" && e.keycode === space) rawPresses++;
    if (e.name === "KeyRelease" && e.keycode === space) rawReleases++;
  });
}, 60_000);

afterAll(async () => {
  key?.close();
  x?.close();
  await server?.close();
});

/** Holds the key, lets it go, and waits for the release to be told. */
async function pressAndRelease(): Promise<void> {
  const n = seen.length;
  await xdo("keydown", "ctrl+alt+space");
  await waitFor("the press", async () => seen.length === n + 1);
  await xdo("keyup", "space");
  await xdo("keyup", "ctrl+alt");
  await waitFor("the release", async () => seen.length === n + 2);
}

describe("the global hold key", () => {
  it("reads GTK accelerators", () => {
    expect(parseAccelerator("<Ctrl><Alt>space")).toEqual({ modifiers: ["control", "alt"], keysym: 0x20 });
    expect(parseAccelerator("<Primary><Shift>F9")).toEqual({
      modifiers: ["control", "shift"],
      keysym: 0xffc6,
    });
    expect(parseAccelerator("<Super>Y")).toEqual({ modifiers: ["super"], keysym: 0x79 });
    expect(parseAccelerator("<Hyper>space")).toBeNull();
    expect(parseAccelerator("<Ctrl>Page_Up")).toBeNull();
  });

  it("tells the press and the release of Ctrl+Alt+Space, and nothing for Space alone", async () => {
    await xdo("key", "space");
    await pressAndRelease();
    // Space alone came first: had it been taken for the key, it would be the first down.
    expect(seen).toEqual(["down", "up"]);
  });

  it("works with Num Lock and Caps Lock on", async () => {
    seen.length = 0;
    await xdo("key", "Num_Lock");
    await xdo("key", "Caps_Lock");
    try {
      await pressAndRelease();
    } finally {
      await xdo("key", "Num_Lock");
      await xdo("key", "Caps_Lock");
    }
    expect(seen).toEqual(["down", "up"]);
  });

  it("takes the server's auto-repeat while held for the key still down", async () => {
    seen.length = 0;
    await xset("r", "on");
    await xset("r", "rate", "100", "50");
    const before = { presses: rawPresses, releases: rawReleases };
    await xdo("keydown", "ctrl+alt+space");
    // The positive control: the server repeated the key (a release and a press each time) while it was down.
    await waitFor(
      "three repeats",
      async () => rawPresses - before.presses >= 4 && rawReleases - before.releases >= 3,
      20_000,
    );
    expect(seen).toEqual(["down"]);
    await xdo("keyup", "space");
    await xdo("keyup", "ctrl+alt");
    await waitFor("the release", async () => seen.length === 2);
    expect(seen).toEqual(["down", "up"]);
  });

  it("says so when another program holds the key", async () => {
    const other = await connectX(server.display);
    try {
      await expect(holdKey(other, "<Ctrl><Alt>space", { down() {}, up() {} })).rejects.toThrow(
        /held by another program/,
      );
      // The same connection can hold a key nobody holds.
      const f9 = await holdKey(other, "<Ctrl><Alt>F9", { down() {}, up() {} });
      f9.close();
    } finally {
      other.close();
    }
  });
});
