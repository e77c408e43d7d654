// Every tool against real windows: Xvfb with two RandR monitors, openbox, real X clients, the real
// desktop-control process, and the real MCP SDK client.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { GUARD_REFUSALS } from "@yui/mod-kit";
import { expectLoopbackOnly } from "@yui/mod-kit/testing";
import { startRouter } from "@yui/router/src/router.ts";
import { UPSTREAMS } from "@yui/router/src/upstreams.ts";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localIso } from "./localtime.ts";
import { msg } from "./messages.ts";
import { LinuxPlatform } from "./platform/linux.ts";
import { TOOL_DESCRIPTIONS } from "./server.ts";
import { type ModProcess, mcpClient, startMod, textOf } from "./testing/mcp.ts";
import { MONITORS, startXSession, waitFor, type XSession } from "./testing/x-session.ts";
import { dayFile } from "./witness-log.ts";

const UNTITLED = path.resolve(import.meta.dirname, "testing", "untitled-window.ts");
const ALLOWED = "xeyes, Hello Eyes, Untitled, no-such-app, ../../usr/bin/xeyes";

let xs: XSession;
let tmp: string;
let mod: ModProcess;
let emptyMod: ModProcess;
let client: Awaited<ReturnType<typeof mcpClient>>;
let platform: LinuxPlatform;
let clock: ChildProcess;

/** Activates the first window whose title is `title` and waits until it is the active one. */
async function activate(title: string): Promise<void> {
  await xs.x("wmctrl", ["-a", title, "-F"]);
  await waitFor(`'${title}' active`, async () => (await platform.frontWindow()).title === title);
}

beforeAll(async () => {
  xs = await startXSession();
  tmp = await mkdtemp(path.join(tmpdir(), "dc-linux-"));
  const apps = path.join(tmp, "data", "applications");
  await mkdir(apps, { recursive: true });
  await writeFile(
    path.join(apps, "hello-eyes.desktop"),
    '[Desktop Entry]\nType=Application\nName=Hello Eyes\nExec=xeyes -title "Hello Eyes" -geometry 200x200+300+300 %U\n',
  );
  const env = {
    ...xs.env,
    XDG_DATA_HOME: path.join(tmp, "data"),
    XDG_DATA_DIRS: path.join(tmp, "none"),
    WITNESS_LOG_DIR: path.join(tmp, "witness"),
    DESKTOP_CONTROL_ALLOWED_APPS: ALLOWED,
  };
  platform = new LinuxPlatform({ env });
  // The root is red; a blue clock stands on the right monitor only, so the crops can be told apart.
  await xs.x("xsetroot", ["-solid", "#ff0000"]);
  clock = xs.start(["xclock", "-bg", "#0000ff", "-geometry", "400x400+2300+200", "-title", "blue clock"]);
  xs.start(["xterm", "-T", "dc term", "-geometry", "80x24+100+100"]);
  await waitFor("the clients' windows", async () => (await platform.runningApps()).length >= 2);
  // Both processes start together: tsx startup is the slow part of this file.
  [mod, emptyMod] = await Promise.all([
    startMod(["--port", "0"], env),
    startMod(["--port", "0"], { ...xs.env, DESKTOP_CONTROL_ALLOWED_APPS: " , " }),
  ]);
  client = await mcpClient(mod.url);
}, 90_000);

afterAll(async () => {
  await client?.close();
  await mod?.stop();
  await emptyMod?.stop();
  await xs?.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
});

describe("desktop-control on X11", () => {
  it("logs the preflight and the allowlist at startup", () => {
    expect(mod.stderr()).toContain(`[setup] X display ${xs.display}: ok`);
    expect(mod.stderr()).toContain(`[setup] DESKTOP_CONTROL_ALLOWED_APPS: ${ALLOWED}`);
    expect(mod.stderr()).not.toContain("NOT");
  });

  it("lists the six tools with the spec's descriptions", async () => {
    const { tools } = await client.client.listTools();
    expect(Object.fromEntries(tools.map((t) => [t.name, t.description]))).toEqual(TOOL_DESCRIPTIONS);
  });

  it("screenshot returns one PNG per monitor, long edge 1280, each showing its own monitor", async () => {
    const r = await client.call("screenshot");
    expect(r.isError).toBeFalsy();
    expect(r.content).toHaveLength(MONITORS.length);
    const sizes: [number, number][] = [];
    const blue: number[] = [];
    for (const c of r.content) {
      if (c.type !== "image") throw new Error(`not an image: ${c.type}`);
      expect(c.mimeType).toBe("image/png");
      const png = Buffer.from(c.data, "base64");
      expect(png.subarray(1, 4).toString()).toBe("PNG");
      const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
      sizes.push([info.width, info.height]);
      let n = 0;
      for (let i = 0; i < data.length; i += info.channels)
        if (data[i] === 0 && data[i + 1] === 0 && data[i + 2] === 255) n++;
      blue.push(n);
    }
    // 1920x1200 scales to 1280x800; 1280x1024 already fits.
    expect(sizes).toEqual([
      [1280, 800],
      [1280, 1024],
    ]);
    expect(blue[0]).toBe(0);
    expect(blue[1]).toBeGreaterThan(10_000);
  });

  it("list_running_apps names the visible apps by WM_CLASS", async () => {
    const r = await client.call("list_running_apps");
    const apps = (r.structuredContent as { apps: string[] }).apps;
    expect(apps).toEqual(expect.arrayContaining(["XClock", "XTerm"]));
    expect(JSON.parse(textOf(r))).toEqual({ apps });
  });

  it("get_frontmost_window reports the active app and its title", async () => {
    await activate("dc term");
    const r = await client.call("get_frontmost_window");
    expect(r.structuredContent).toEqual({ app: "XTerm", title: "dc term" });
    // A title change is seen at once (xclock is no use here: it never takes focus).
    await xs.x("xdotool", ["search", "--name", "^dc term$", "set_window", "--name", "renamed term"]);
    await waitFor("the new title", async () => (await platform.frontWindow()).title === "renamed term");
    expect((await client.call("get_frontmost_window")).structuredContent).toEqual({
      app: "XTerm",
      title: "renamed term",
    });
    await xs.x("xdotool", ["search", "--name", "^renamed term$", "set_window", "--name", "dc term"]);
    await waitFor("the old title", async () => (await platform.frontWindow()).title === "dc term");
  });

  it("get_frontmost_window reports a null title for a window without a name", async () => {
    const untitled = xs.start([process.execPath, "--import", "tsx", UNTITLED]);
    await waitFor("the untitled window", async () => (await platform.runningApps()).includes("Untitled"));
    await xs.x("xdotool", ["search", "--class", "Untitled", "windowactivate"]);
    await waitFor("untitled active", async () => (await platform.frontWindow()).app === "Untitled");
    expect((await client.call("get_frontmost_window")).structuredContent).toEqual({
      app: "Untitled",
      title: null,
    });
    // close_app asks it politely, and it quits on its own: exit code 0, no signal.
    const exited = once(untitled, "exit");
    expect(textOf(await client.call("close_app", { name: "untitled" }))).toBe(msg.closed("Untitled"));
    expect(await exited).toEqual([0, null]);
  });

  it("open_app launches an allowlisted command, focuses it, and close_app closes it gracefully", async () => {
    const opened = await client.call("open_app", { name: "xeyes" });
    expect(opened.isError).toBeFalsy();
    expect(textOf(opened)).toBe(msg.opened("xeyes"));
    expect((await platform.frontWindow()).app).toBe("XEyes");
    // A second open_app brings the running app forward instead of starting another.
    await activate("dc term");
    expect(textOf(await client.call("open_app", { name: "xeyes" }))).toBe(msg.opened("xeyes"));
    expect((await platform.windows()).filter((w) => w.cls === "XEyes")).toHaveLength(1);
    expect((await platform.frontWindow()).app).toBe("XEyes");

    expect(textOf(await client.call("close_app", { name: "xeyes" }))).toBe(msg.closed("xeyes"));
    expect(await platform.runningApps()).not.toContain("XEyes");
    expect(textOf(await client.call("close_app", { name: "xeyes" }))).toBe(msg.notRunning("xeyes"));
  });

  it("open_app launches by desktop entry name", async () => {
    expect(textOf(await client.call("open_app", { name: "hello eyes" }))).toBe(msg.opened("Hello Eyes"));
    expect(await platform.frontWindow()).toEqual({ app: "XEyes", title: "Hello Eyes" });
    // The entry's command (xeyes) ties its windows to the name, so close_app finds them.
    expect(textOf(await client.call("close_app", { name: "Hello Eyes" }))).toBe(msg.closed("Hello Eyes"));
    expect(await platform.runningApps()).not.toContain("XEyes");
    // The unlisted clock was left alone.
    expect(clock.exitCode).toBeNull();
  });

  it("launches an app with the user's own locale, not the helpers' C.UTF-8", async () => {
    const out = path.join(tmp, "env.txt");
    await writeFile(
      path.join(tmp, "data", "applications", "env-probe.desktop"),
      `[Desktop Entry]\nType=Application\nName=Env Probe\nExec=sh -c "env > ${out}"\n`,
    );
    const { LC_ALL: _helpersLocale, ...userEnv } = xs.env;
    const p = new LinuxPlatform({
      env: { ...userEnv, LANG: "de_DE.UTF-8", XDG_DATA_HOME: path.join(tmp, "data") },
      openWaitMs: 500,
    });
    expect(await p.openApp("Env Probe")).toBe(msg.openedNoWindow("Env Probe"));
    const env = await waitFor(
      "the probe's output",
      async () => (await readFile(out, "utf8").catch(() => "")) || false,
    );
    expect(env).toContain("LANG=de_DE.UTF-8\n");
    expect(env).not.toContain("LC_ALL=");
  });

  it("refuses an app that is not allowlisted, and touches nothing", async () => {
    const before = await platform.windows();
    for (const [tool, name] of [
      ["open_app", "xclock"],
      ["close_app", "XClock"],
      ["close_app", "XTerm"],
    ] as const) {
      const r = await client.call(tool, { name });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toBe(msg.notAllowed(name));
    }
    expect((await platform.windows()).map((w) => w.id)).toEqual(before.map((w) => w.id));
  });

  it("answers an allowlisted app that does not exist with a clear error", async () => {
    const r = await client.call("open_app", { name: "no-such-app" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(msg.notInstalled("no-such-app"));
  });

  it("never runs a path, even an allowlisted one", async () => {
    const r = await client.call("open_app", { name: "../../usr/bin/xeyes" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe(msg.notInstalled("../../usr/bin/xeyes"));
    expect(await platform.runningApps()).not.toContain("XEyes");
  });

  it("listens on 127.0.0.1 only (the bound address, so a 0.0.0.0 bind fails on any machine)", async () => {
    await expectLoopbackOnly(Number(new URL(mod.url).port));
  });

  it("refuses a non-loopback Host (421) and Origin (403) before any tool runs", async () => {
    const status = (headers: Record<string, string>) =>
      new Promise<number>((resolve, reject) => {
        const req = request(
          mod.url,
          { method: "POST", headers: { "content-type": "application/json", ...headers } },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
      });
    expect(await status({ host: "evil.example:9000" })).toBe(GUARD_REFUSALS.host.status);
    expect(await status({ origin: "http://evil.example" })).toBe(GUARD_REFUSALS.origin.status);
    expect([GUARD_REFUSALS.host.status, GUARD_REFUSALS.origin.status]).toEqual([421, 403]);
  });

  it("get_activity_timeline merges the day file, and a missing day or bad date is answered plainly", async () => {
    const day = localIso(new Date()).slice(0, 10);
    const t = (h: number) => localIso(new Date(new Date().setHours(h, 0, 0, 0)));
    const lines = [
      { t: t(0), type: "app", app: "XTerm", title: "dc term" },
      { t: t(0), type: "idle_start" },
    ];
    await mkdir(path.join(tmp, "witness"), { recursive: true });
    await writeFile(dayFile(path.join(tmp, "witness"), day), lines.map((l) => JSON.stringify(l)).join("\n"));
    const r = await client.call("get_activity_timeline", { date: day });
    const tl = r.structuredContent as { date: string; segments: { type: string }[] };
    expect(tl.date).toBe(day);
    expect(tl.segments.map((s) => s.type)).toEqual(["idle"]);
    expect((await client.call("get_activity_timeline", { date: "2001-01-01" })).structuredContent).toEqual({
      date: "2001-01-01",
      segments: [],
    });
    const bad = await client.call("get_activity_timeline", { date: "yesterday" });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe(msg.badDate("yesterday"));
  });
});

describe("desktop-control given a 1 MB argument", () => {
  it("quotes at most 200 characters of a bad date and of a name it refuses", async () => {
    const big = "d".repeat(1 << 20);
    const date = await client.call("get_activity_timeline", { date: big });
    expect(date.isError).toBe(true);
    expect(textOf(date)).toBe(
      `date must be a calendar date written YYYY-MM-DD, got '${"d".repeat(200)}…(${big.length} characters)'`,
    );
    for (const tool of ["open_app", "close_app"]) {
      const r = await client.call(tool, { name: "n".repeat(1 << 20) });
      expect([r.isError, textOf(r)]).toEqual([true, msg.badName()]);
    }
    // A name within the 256-character limit that is not allowlisted is still quoted cut.
    const long = await client.call("open_app", { name: "n".repeat(256) });
    expect(textOf(long)).toBe(`'${"n".repeat(200)}…(256 characters)' is not in DESKTOP_CONTROL_ALLOWED_APPS`);
  });
});

describe("desktop-control with an empty allowlist", () => {
  it("refuses every open and close, naming the variable", async () => {
    const empty = emptyMod;
    const c = await mcpClient(empty.url);
    try {
      expect(empty.stderr()).toContain("[setup] DESKTOP_CONTROL_ALLOWED_APPS: empty");
      for (const [tool, name] of [
        ["open_app", "xeyes"],
        ["close_app", "XTerm"],
        ["close_app", "XClock"],
      ] as const) {
        const r = await c.call(tool, { name });
        expect(r.isError).toBe(true);
        expect(textOf(r)).toBe(msg.allowlistEmpty());
      }
      expect(await platform.runningApps()).toEqual(expect.arrayContaining(["XTerm", "XClock"]));
      expect(await platform.runningApps()).not.toContain("XEyes");
    } finally {
      await c.close();
    }
  });
});

describe("desktop-control through the router", () => {
  it("answers every tool at /desktop/mcp with the real SDK client", async () => {
    // The router's own table, with the desktop prefix pointed at this test's port.
    const port = Number(new URL(mod.url).port);
    const router = await startRouter({ port: 0, upstreams: { desktop: { ...UPSTREAMS.desktop!, port } } });
    const c = await mcpClient(`${router.url}/desktop/mcp`);
    try {
      const shot = await c.call("screenshot");
      expect(shot.content.map((x) => x.type)).toEqual(["image", "image"]);
      expect((await c.call("list_running_apps")).structuredContent).toEqual({
        apps: await platform.runningApps(),
      });
      expect((await c.call("get_frontmost_window")).structuredContent).toEqual(await platform.frontWindow());
      expect((await c.call("get_activity_timeline", { date: "2001-01-01" })).structuredContent).toEqual({
        date: "2001-01-01",
        segments: [],
      });
      expect(textOf(await c.call("open_app", { name: "xeyes" }))).toBe(msg.opened("xeyes"));
      expect(textOf(await c.call("close_app", { name: "xeyes" }))).toBe(msg.closed("xeyes"));
      expect(textOf(await c.call("open_app", { name: "xclock" }))).toBe(msg.notAllowed("xclock"));
    } finally {
      await c.close();
      await router.close();
    }
  });
});
