/**
 * The host's door tried as an attacker would (issue 28, docs/app.md "Security model"), in real Chromium: pages on
 * a foreign site and on other loopback origins, in the same browser as a signed-in YUI window (so the browser holds
 * YUI's cookie), try every route and the bridge with an image, a form POST, a no-cors fetch and a WebSocket; a
 * local process without the secret tries the bridge and /api/*. Each attempt is refused, nothing reaches the
 * backends behind the host, the store is unchanged afterwards and the host is still up. The positive controls:
 * the signed-in window in the same browser gets in, and YUI's own commands with the secret do.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readHostSecret, secretFile } from "../host/launch-secret.ts";
import { DOOR_REFUSALS } from "../host/server/door.ts";
import { type Host, startHost } from "../host/server/server.ts";
import { bridgeClient, rawRequest, secretHeaders, upgradeStatus } from "../host/server/testing.ts";
import type { Store } from "../host/store/store.ts";
import { type SpeechServer, startSpeechServer } from "../host/voice/testing.ts";
import { characterPreset } from "../src/app/presets/preset.ts";
import { savePreset } from "../src/app/presets/presets.ts";
import { PRESET_KEYS } from "../src/protocol/preset.ts";
import { VOICE_KEYS } from "../src/protocol/voice.ts";
import { SIGNED_OUT } from "../src/ui/errors.ts";
import { SETTINGS_COPY } from "../src/ui/settings/shared.ts";
import { type PushBackend, startPushBackend } from "../tools/push-backend/server.ts";
import { chatStream, startScriptedBackend } from "../tools/scripted-backend/server.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../tools/testing/chromium.ts";
import { runYui } from "../tools/testing/yui-process.ts";

const REPO = resolve(import.meta.dirname, "..");
const YUI = join(REPO, "host", "bin", "yui.ts");
const KEY = "sk-door-test-5b7e";

/** A backend that records every request it gets (the proxy's destination): nothing may reach it here. */
interface Recorder {
  url: string;
  requests: { path: string; headers: IncomingHttpHeaders }[];
  server: Server;
}

async function startRecorder(): Promise<Recorder> {
  const requests: Recorder["requests"] = [];
  const server = createServer((req, res) => {
    req.resume();
    requests.push({ path: req.url ?? "", headers: req.headers });
    res.writeHead(200, { "content-type": "application/json" }).end('{"data":[]}');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests, server };
}

/**
 * The attacker's page: every route of the host by every means a page has, then the bridge and the push relay
 * as WebSockets (which, if one opened, would try to flip the browser switch). Results land in window.__door.
 */
const ATTACK_PAGE = `<!doctype html><meta charset="utf-8"><body><script type="module">
const HOST = new URLSearchParams(location.search).get("host");
const WS = HOST.replace(/^http/, "ws");
const GETS = ["/", "/%c0", "//", "/assets/x.js", "/avatar/yui.vrm", "/api/session", "/api/backend/yui/v1/models",
  "/api/backend/%c0/v1/models", "/api/push/pushy", "/bridge"];
const POSTS = ["/api/backend/yui/v1/chat/completions", "/api/backend/yui/v1/responses", "/api/voice/yui"];
const BODY = JSON.stringify({ text: "spend the key", model: "m", messages: [{ role: "user", content: "hi" }] });
const image = (src) => new Promise((r) => { const i = new Image(); i.onload = i.onerror = () => r(); i.src = src; });
const form = (action) => new Promise((r) => {
  const name = "t" + Math.random().toString(36).slice(2);
  const frame = Object.assign(document.createElement("iframe"), { name });
  frame.onload = () => r();
  setTimeout(r, 3000);
  document.body.append(frame);
  const f = Object.assign(document.createElement("form"), { method: "POST", action, target: name, enctype: "text/plain" });
  f.append(Object.assign(document.createElement("input"), { name: BODY.slice(0, -2) + ',"x":"', value: '"}' }));
  document.body.append(f);
  f.submit();
});
const socket = (url) => new Promise((r) => {
  const ws = new WebSocket(url);
  ws.onopen = () => {
    ws.send(JSON.stringify({ type: "invoke", id: 1, command: "store_set", args: { key: "yui.browser", value: { enabled: true } } }));
    r("open");
  };
  ws.onerror = () => r("error");
  ws.onclose = () => r("closed");
});
const out = { sockets: {} };
for (const p of GETS) await image(HOST + p);
for (const p of GETS) await fetch(HOST + p, { mode: "no-cors", credentials: "include" }).catch(() => {});
for (const p of POSTS) await fetch(HOST + p, { method: "POST", mode: "no-cors", credentials: "include", body: BODY }).catch(() => {});
for (const p of POSTS) await form(HOST + p);
for (const p of ["/bridge", "/api/push/pushy"]) out.sockets[p] = await socket(WS + p);
window.__door = out;
</script>`;

let dataDir: string;
let host: Host;
let browser: Browser;
let attacker: Server;
let attackerPort: number;
let backend: Recorder;
let speech: SpeechServer;
let push: PushBackend;

/** Every stored row, secrets included: the store as it is now. */
const rows = (store: Store) => store.list().map((k) => [k, JSON.stringify(store.get(k))]);

beforeAll(async () => {
  if (!existsSync(join(REPO, "dist", "index.html"))) {
    const { build } = await import("vite");
    await build({ configFile: join(REPO, "vite.config.ts"), logLevel: "warn" });
  }
  dataDir = mkdtempSync(join(tmpdir(), "yui-door-"));
  [backend, speech, push] = await Promise.all([startRecorder(), startSpeechServer(), startPushBackend()]);
  host = await startHost({ port: 0, dataDir, env: {}, browserCommands: false });
  savePreset(host.store, characterPreset("yui", "YUI", { transport: "chat", base_url: backend.url }));
  savePreset(host.store, {
    ...characterPreset("pushy", "Pushy"),
    backend: { transport: "push", push_url: push.url },
  });
  host.store.set(PRESET_KEYS.apiKey("yui"), KEY, "test");
  host.store.set(PRESET_KEYS.apiKey("pushy"), KEY, "test");
  host.store.set(VOICE_KEYS.preset("yui"), { enabled: true, engine: "openai", base_url: speech.url }, "test");
  host.store.set(VOICE_KEYS.apiKey("yui"), KEY, "test");
  attacker = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(ATTACK_PAGE);
  });
  await new Promise<void>((r) => attacker.listen(0, "127.0.0.1", r));
  attackerPort = (attacker.address() as AddressInfo).port;
  browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    // evil.example is a foreign site served from this machine: the name resolves to loopback for this browser.
    args: [...CHROMIUM_ARGS, "--host-resolver-rules=MAP evil.example 127.0.0.1"],
  });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await new Promise<void>((r) => (attacker ? attacker.close(() => r()) : r()));
  await new Promise<void>((r) => (backend ? backend.server.close(() => r()) : r()));
  await speech?.close();
  await push?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** YUI's own window, signed in through a one-time launch URL as `npm start` opens it. */
async function signedIn(context: BrowserContext, view = "main"): Promise<Page> {
  const page = await context.newPage();
  await page.goto(host.launchUrl(`${host.url}?view=${view}&stage=off`));
  await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 60_000 });
  return page;
}

describe("pages of other origins in the user's browser", { timeout: 180_000 }, () => {
  it("are refused on every route and the bridge, by image, form, no-cors fetch and WebSocket; the host stays up and the store unchanged", async () => {
    const context = await browser.newContext();
    const seen: { url: string; status: number }[] = [];
    context.on("response", (r) => {
      if (
        r.url().startsWith(`http://127.0.0.1:${host.port}/`) ||
        r.url().startsWith(`ws://127.0.0.1:${host.port}/`)
      )
        seen.push({ url: r.url(), status: r.status() });
    });
    try {
      // Control first: YUI's own window in this browser gets in (and leaves its cookie in the browser).
      const own = await signedIn(context);
      expect(await own.getByTestId("connection").textContent()).toBe("connected");
      expect(await own.evaluate(() => fetch("/api/session").then((r) => r.status))).toBe(204);
      expect(host.bridge.size()).toBe(1);
      const ownResponses = seen.length;
      expect(seen.every((s) => s.status < 400)).toBe(true);
      const before = rows(host.store);

      const origins = [
        `http://evil.example:${attackerPort}`,
        `http://127.0.0.1:${attackerPort}`,
        `http://localhost:${attackerPort}`,
      ];
      for (const origin of origins) {
        const page = await context.newPage();
        const from = seen.length;
        await page.goto(`${origin}/attack.html?host=${encodeURIComponent(`http://127.0.0.1:${host.port}`)}`);
        const result = await page.waitForFunction(
          () => (window as unknown as { __door?: unknown }).__door,
          null,
          {
            timeout: 90_000,
          },
        );
        const door = (await result.jsonValue()) as { sockets: Record<string, string> };
        // No WebSocket opened, from any origin.
        expect(door.sockets, origin).toEqual({
          "/bridge": expect.not.stringMatching(/^open$/),
          "/api/push/pushy": expect.not.stringMatching(/^open$/),
        });
        // Every answer the host gave these pages is the door's refusal; and it did answer them (they reached it).
        const answers = seen.slice(from);
        expect(answers.length, origin).toBeGreaterThanOrEqual(10);
        expect(
          answers.filter((a) => a.status !== DOOR_REFUSALS.crossSite.status),
          origin,
        ).toEqual([]);
        await page.close();
      }

      // Nothing reached what stands behind the host; nothing changed; the host is up and the window still in.
      expect(backend.requests).toEqual([]);
      expect(speech.requests).toEqual([]);
      expect(push.upgrades).toEqual([]);
      expect(rows(host.store)).toEqual(before);
      expect(host.bridge.size()).toBe(1);
      expect(await own.evaluate(() => fetch("/api/session").then((r) => r.status))).toBe(204);
      expect(await own.getByTestId("connection").textContent()).toBe("connected");
      expect(seen.length).toBeGreaterThan(ownResponses);
      await own.close();
    } finally {
      await context.close();
    }
  });

  it("a page of the host's own origin without the cookie is the host's page, but signed out", async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${host.url}?view=settings&stage=off`);
      await expect
        .poll(() => page.getByTestId("connection").textContent(), { timeout: 20_000 })
        .toBe("not signed in");
      expect(await page.evaluate(() => fetch("/api/session").then((r) => r.status))).toBe(401);
      // Control: the same browser signed in through a launch URL gets in.
      const own = await signedIn(context, "settings");
      expect(await own.getByTestId("connection").textContent()).toBe("connected");
    } finally {
      await context.close();
    }
  });
});

describe("a local process without the secret", () => {
  const ROUTES: [string, string][] = [
    ["GET", "/api/session"],
    ["GET", "/api/backend/yui/v1/models"],
    ["POST", "/api/backend/yui/v1/chat/completions"],
    ["POST", "/api/voice/yui"],
    ["GET", "/avatar/yui.vrm"],
    ["PUT", "/avatar/yui.vrm"],
  ];
  const hostHeader = () => ({ Host: `127.0.0.1:${host.port}` });

  it("is refused on the bridge, the push relay and every /api route (401), with a wrong secret too; the secret from another origin is 403", async () => {
    const before = rows(host.store);
    for (const [method, path] of ROUTES) {
      const extras: Record<string, string>[] = [
        {},
        { "x-yui-secret": "guess" },
        { cookie: `yui_session_${host.port}=guess` },
      ];
      for (const extra of extras) {
        const r = await rawRequest(host.port, path, { ...hostHeader(), ...extra }, method, "{}");
        expect(r.status, `${method} ${path} ${JSON.stringify(extra)}`).toBe(401);
        expect(JSON.parse(r.body).error.message).toBe(DOOR_REFUSALS.signedOut.message);
      }
      const foreign = { ...hostHeader(), ...secretHeaders(host), Origin: `http://127.0.0.1:${attackerPort}` };
      expect((await rawRequest(host.port, path, foreign, method, "{}")).status).toBe(403);
    }
    for (const path of ["/bridge", "/api/push/pushy"]) {
      expect(await upgradeStatus(host.port, path, hostHeader())).toBe(401);
      expect(await upgradeStatus(host.port, path, { ...hostHeader(), "x-yui-secret": "guess" })).toBe(401);
    }
    await expect(bridgeClient(host.port)).rejects.toThrow("bridge refused: HTTP 401");
    expect(backend.requests).toEqual([]);
    expect(rows(host.store)).toEqual(before);
    // Control: YUI's own command, with the secret from the data directory, gets in.
    const own = await bridgeClient(host);
    expect((await own.invoke("api_key_status", { presetId: "yui" })).value).toEqual({
      stored: true,
      inForce: true,
    });
    own.close();
    expect(
      (await rawRequest(host.port, "/api/session", { ...hostHeader(), ...secretHeaders(host) })).status,
    ).toBe(204);
  });

  it("a launch token works once: a spent one leads to the page without a cookie", async () => {
    const url = new URL(host.launchUrl(`${host.url}?view=quick`));
    const path = `${url.pathname}${url.search}`;
    const first = await rawRequest(host.port, path, hostHeader());
    expect(first.status).toBe(303);
    expect(first.headers.location).toBe("/?view=quick");
    expect(String(first.headers["set-cookie"])).toMatch(
      /^yui_session_\d+=[\w-]+; HttpOnly; SameSite=Strict; Path=\/$/,
    );
    expect(String(first.headers["set-cookie"])).toContain(host.secret);
    const again = await rawRequest(host.port, path, hostHeader());
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe("/?view=quick");
    expect(again.headers["set-cookie"]).toBeUndefined();
  });
});

describe("yui serve, the browser build's first run", { timeout: 180_000 }, () => {
  it("opens signed in through a one-time URL it prints with --no-open; local commands read the secret from the data directory (0600)", async () => {
    const data = mkdtempSync(join(tmpdir(), "yui-door-serve-"));
    const chat = await startScriptedBackend();
    const serve = spawn(process.execPath, ["--import", "tsx", YUI, "serve", "--port", "0", "--no-open"], {
      cwd: REPO,
      env: { ...process.env, YUI_DATA_DIR: data, OPENAI_BASE_URL: "", OPENAI_API_KEY: "", OPENAI_MODEL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    serve.stdout.on("data", (d) => {
      out += d;
    });
    const exited = new Promise<number | null>((r) => serve.on("exit", (code) => r(code)));
    const context = await browser.newContext();
    try {
      await expect.poll(() => /works once\): (\S+)/.exec(out)?.[1], { timeout: 60_000 }).toBeTruthy();
      const launch = /works once\): (\S+)/.exec(out)![1]!;
      const hostUrl = /YUI is running at (\S+)/.exec(out)![1]!;
      const port = Number(new URL(hostUrl).port);
      expect(launch.startsWith(`${hostUrl}?yui_launch=`)).toBe(true);
      // The secret the host wrote for local commands: the user's alone.
      const file = secretFile(data, port);
      expect(statSync(file).mode & 0o777).toBe(0o600);

      const page = await context.newPage();
      await page.goto(launch);
      await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 60_000 });
      expect(await page.getByTestId("connection").textContent()).toBe("connected");
      // The address bar kept no token.
      expect(page.url()).toBe(hostUrl);
      // Spent: the same URL in another browser leads to the page, not signed in.
      const other = await browser.newContext();
      const stale = await other.newPage();
      await stale.goto(launch);
      await expect
        .poll(() => stale.getByTestId("signed-out").textContent(), { timeout: 30_000 })
        .toBe(SIGNED_OUT);
      await other.close();

      // yui chat --host reaches the host's bridge with the secret from this data directory: look at: body is
      // answered by the host (no desktop here: error: unsupported), where a refused bridge ends the command.
      chat.enqueue(
        { body: chatStream({ calls: [{ id: "c1", name: "look", arguments: '{"at":"body"}' }] }) },
        { body: chatStream({ text: ["ok"] }) },
      );
      const args = [
        "chat",
        "--base-url",
        chat.url,
        "--transport",
        "chat",
        "--host",
        hostUrl,
        "--message",
        "look",
      ];
      const run = await runYui(args, data);
      expect(run.stderr).toBe("");
      expect(run.lines.find((l) => l.type === "tool_call")?.result).toBe("error: unsupported");
      // Another data directory holds no secret of this host: its bridge refuses the command.
      const stranger = await runYui(args, mkdtempSync(join(data, "other-")));
      expect(stranger.code).toBe(1);
      expect(stranger.stderr).toContain("401");

      // The browser build's host mounts no browser tool.
      const b = await bridgeClient({ port, secret: readHostSecret(data, port) });
      expect(await b.invoke("browser_run", { presetId: "yui", code: "1" })).toMatchObject({
        ok: false,
        error: "unknown command: browser_run",
      });
      b.close();
      serve.kill("SIGINT");
      expect(await exited).toBe(0);
      // Stopped: the secret file is gone with it.
      expect(existsSync(file)).toBe(false);
    } finally {
      serve.kill("SIGKILL");
      await context.close();
      await chat.close();
      rmSync(data, { recursive: true, force: true });
    }
  });
});

describe("a key bound to its address, in Settings", { timeout: 120_000 }, () => {
  it("says the stored key was dropped when the base URL changes, and keeps a key entered with the new one", async () => {
    const context = await browser.newContext();
    try {
      const settings = await signedIn(context, "settings");
      const note = settings.getByTestId("key-status");
      await expect.poll(() => note.textContent()).toBe(SETTINGS_COPY.keyStored);
      const other = await startRecorder();
      try {
        await settings.getByTestId("base-url").fill(other.url);
        await settings.getByTestId("save-backend").click();
        await expect.poll(() => note.textContent()).toBe(SETTINGS_COPY.keyDropped);
        expect(host.store.has(PRESET_KEYS.apiKey("yui"))).toBe(false);
        // Entered again with the new address: bound to it.
        await settings.getByTestId("api-key").fill(`${KEY}-new`);
        await settings.getByTestId("save-backend").click();
        await expect.poll(() => note.textContent()).toBe(SETTINGS_COPY.keyStored);
        expect(host.store.get(PRESET_KEYS.apiKey("yui"))).toEqual({
          key: `${KEY}-new`,
          origins: [new URL(other.url).origin],
        });
      } finally {
        await new Promise<void>((r) => other.server.close(() => r()));
      }
    } finally {
      await context.close();
    }
  });
});
