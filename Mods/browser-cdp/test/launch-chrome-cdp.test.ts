import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { expectLoopbackOnly, freePort, rawRequest, waitFor } from "@yui/mod-kit/testing";
import { chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SCRIPT = fileURLToPath(new URL("../launch-chrome-cdp.sh", import.meta.url));
const CHROMIUM = "/usr/bin/chromium";
// Root in a container needs --no-sandbox; the rest keeps a headless Chromium quiet and GPU-free.
const BROWSER_FLAGS = [
  "--headless=new",
  "--no-sandbox",
  "--use-gl=angle",
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
  "--disable-background-networking",
  "--disable-component-update",
];

/** The script's exact refusals. */
const MESSAGES = {
  profileBusy: (profile: string, pid: number) =>
    `browser-cdp: a browser is already running on profile ${profile} (pid ${pid}); close it first, or pass --profile for another profile\n`,
  portBusy: (port: number) =>
    `browser-cdp: port ${port} on 127.0.0.1 is already in use; stop what listens there or pass --port\n`,
  badPort: (v: string) => `browser-cdp: --port must be an integer from 1 to 65535, got '${v}'\n`,
  notExecutable: (p: string) => `browser-cdp: browser '${p}' is not an executable file\n`,
};

function launch(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn("bash", [SCRIPT, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on("data", (c: Buffer) => {
    stderr += c.toString();
  });
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

const dirs: string[] = [];
function tempProfile(): string {
  const d = realpathSync(mkdtempSync(join(tmpdir(), "cdp-profile-")));
  dirs.push(d);
  return d;
}

let profile: string;
let port: number;
let pid: number;
let first: Awaited<ReturnType<typeof launch>>;

beforeAll(async () => {
  profile = tempProfile();
  port = await freePort();
  first = await launch([
    "--browser",
    CHROMIUM,
    "--profile",
    profile,
    "--port",
    String(port),
    "--",
    ...BROWSER_FLAGS,
    // A start page that is loaded at once (extra arguments go to the browser as the user's would).
    "about:blank",
  ]);
  pid = Number(readFileSync(join(profile, ".yui-cdp.pid"), "utf8"));
  // Attach only once the first tab has committed its start page: Playwright's attach waits on every page it
  // finds, and a first tab still committing its start page under load is where it hung (in about one full
  // `npm test` in three, never alone).
  await waitFor("the first tab on about:blank", async () => {
    const r = await rawRequest(`http://127.0.0.1:${port}/json/list`);
    const tabs = JSON.parse(r.body) as { type: string; url: string }[];
    return tabs.some((t) => t.type === "page" && t.url === "about:blank");
  });
});

afterAll(async () => {
  // Ends only the browser this suite started, by its pid.
  if (pid > 0) {
    try {
      process.kill(pid, "SIGTERM");
      for (let i = 0; i < 50; i++) {
        process.kill(pid, 0);
        await new Promise((r) => setTimeout(r, 100));
      }
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("launch-chrome-cdp.sh with Debian's Chromium", () => {
  it("starts the browser and reports the endpoint, the tunnel, the Playwright attachment and the warning", () => {
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const lines = first.stdout.trimEnd().split("\n");
    expect(lines[0]).toBe(
      `browser-cdp: ${CHROMIUM} (pid ${pid}) is up with CDP on http://127.0.0.1:${port}, profile ${profile}`,
    );
    expect(lines.slice(2)).toEqual([
      `browser-cdp: tunnel:     ssh -R ${port}:localhost:${port} <remote-host>`,
      `browser-cdp: Playwright: npx @playwright/mcp@latest --cdp-endpoint http://localhost:${port}`,
      "browser-cdp: warning: CDP is full, unauthenticated control of this browser; keep it on 127.0.0.1",
    ]);
  });

  it("answers /json/version on 127.0.0.1 with a loopback DevTools WebSocket", async () => {
    const r = await rawRequest(`http://127.0.0.1:${port}/json/version`);
    expect(r.status).toBe(200);
    const v = JSON.parse(r.body) as { Browser: string; webSocketDebuggerUrl: string };
    expect(v.Browser).toMatch(/^(Headless)?Chrome\/\d+/);
    expect(v.webSocketDebuggerUrl).toMatch(new RegExp(`^ws://127\\.0\\.0\\.1:${port}/devtools/browser/`));
  });

  it("listens on 127.0.0.1 only (the bound address of every listener on the port)", async () => {
    // Reads the listening sockets' own addresses, so a 0.0.0.0 or [::] bind fails even on a
    // machine without a second address to connect from.
    await expectLoopbackOnly(port);
  });

  const attach = { timeout: 60_000 };
  it(
    "lets Playwright attach over CDP and drive a page, as the agent's --cdp-endpoint does",
    attach,
    async () => {
      const browser = await chromium.connectOverCDP(`http://localhost:${port}`, { timeout: 45_000 });
      try {
        const context = browser.contexts()[0] ?? (await browser.newContext());
        const page = await context.newPage();
        await page.setContent("<title>yui-cdp</title><p id=x>attached</p>");
        expect(await page.title()).toBe("yui-cdp");
        expect(await page.textContent("#x")).toBe("attached");
        await page.close();
      } finally {
        // Disconnects only: the user's browser keeps running.
        await browser.close();
      }
      process.kill(pid, 0);
    },
  );

  it("refuses a second launch on the same profile and says which process holds it", async () => {
    const r = await launch(["--browser", CHROMIUM, "--profile", profile, "--port", String(await freePort())]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(MESSAGES.profileBusy(profile, pid));
  });

  it("refuses another profile on a port already in use", async () => {
    const r = await launch(["--browser", CHROMIUM, "--profile", tempProfile(), "--port", String(port)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(MESSAGES.portBusy(port));
  });

  it.each(["0", "70000", "x1"])("refuses --port %s", async (value) => {
    const r = await launch(["--browser", CHROMIUM, "--profile", tempProfile(), "--port", value]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(MESSAGES.badPort(value));
  });

  it("refuses a browser path that is not executable", async () => {
    const r = await launch(["--browser", "/nonexistent/chrome", "--profile", tempProfile()]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(MESSAGES.notExecutable("/nonexistent/chrome"));
  });
});
