/**
 * The switches read where the action happens, on the host (issue 28): a window is not what keeps the user's
 * computer safe, so the host's browser commands read yui.browser, body_screen reads yui.screen_capture and
 * relation_rate reads yui.relations at each call, whoever asks over the bridge. The browser build's host mounts
 * no browser commands at all. Each refusal has its positive control: the same call with the switch on gets past it.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_PRESET } from "../../src/app/presets/preset.ts";
import { savePreset } from "../../src/app/presets/presets.ts";
import { switchStates } from "../../src/app/switches.ts";
import { BROWSER_RESULT } from "../../src/io/browser/results.ts";
import { SWITCH_KEYS } from "../../src/protocol/store-keys.ts";
import { BackstopKills } from "../browser/backstop-kills.ts";
import { browserHostConfig, registerBrowserCommands } from "../browser/commands.ts";
import { SpaceLocks } from "../browser/space-lock.ts";
import type { CommandHandler } from "../commands.ts";
import { scriptedExecutor } from "../ingress/testing.ts";
import { openStore } from "../store/store.ts";
import { type AttachedBody, SCREEN_OFF } from "./body-slot.ts";
import { type Host, startHost } from "./server.ts";
import { bridgeClient } from "./testing.ts";

let dir: string;
let host: Host;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yui-switches-"));
  // The desktop app's host: the browser commands are mounted (they stay behind the switch, never run here).
  host = await startHost({ port: 0, dataDir: join(dir, "desktop"), env: {}, browserCommands: true });
  savePreset(host.store, { ...DEFAULT_PRESET, id: "mika", name: "Mika" });
});
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the browser commands", () => {
  it("answer error: browser is off while yui.browser is off, over the bridge, code and guide alike", async () => {
    host.store.set(SWITCH_KEYS.browser, { enabled: false }, "test");
    const b = await bridgeClient(host);
    try {
      const run = await b.invoke("browser_run", { presetId: "yui", code: "console.log(1)" });
      expect(run).toMatchObject({ ok: true, value: "error: browser is off" });
      expect(run.value).toBe(BROWSER_RESULT.off);
      expect(await b.invoke("browser_guide", {})).toMatchObject({ ok: true, value: BROWSER_RESULT.off });
    } finally {
      b.close();
    }
  });

  it("run past the switch once it is on (read at each call): here ego lite is not found", async () => {
    const store = openStore(join(dir, "mounted"));
    const empty = mkdtempSync(join(dir, "no-ego-"));
    const handlers = new Map<string, CommandHandler>();
    try {
      // No ego lite on this HOME or PATH: a call that got past the switch says so.
      const config = browserHostConfig({
        env: { HOME: empty, PATH: empty },
        tmpDir: empty,
        locks: new SpaceLocks(),
        kills: new BackstopKills(),
      });
      await registerBrowserCommands(
        (name, handler) => handlers.set(name, handler),
        () => switchStates(store).browser,
        config,
      );
      const run = () => handlers.get("browser_run")!({ presetId: "yui", code: "console.log(1)" });
      expect(await run()).toBe(BROWSER_RESULT.off);
      store.set(SWITCH_KEYS.browser, { enabled: true }, "test");
      expect(await run()).toBe(BROWSER_RESULT.notFound);
      expect(await handlers.get("browser_guide")!({})).toBe(BROWSER_RESULT.notFound);
      store.set(SWITCH_KEYS.browser, { enabled: false }, "test");
      expect(await run()).toBe(BROWSER_RESULT.off);
    } finally {
      store.close();
    }
  });

  it("are not mounted in the browser build's host (yui serve), which declares no browser tool", async () => {
    const serve = await startHost({ port: 0, dataDir: join(dir, "serve"), env: {} });
    const b = await bridgeClient(serve);
    try {
      serve.store.set(SWITCH_KEYS.browser, { enabled: true }, "test");
      expect(await b.invoke("browser_run", { presetId: "yui", code: "1" })).toMatchObject({
        ok: false,
        error: "unknown command: browser_run",
      });
      expect(await b.invoke("browser_guide", {})).toMatchObject({
        ok: false,
        error: "unknown command: browser_guide",
      });
      // Control: the same connection runs the other commands.
      expect((await b.invoke("api_key_status", { presetId: "yui" })).ok).toBe(true);
    } finally {
      b.close();
      await serve.close();
    }
  });
});

describe("body_screen", () => {
  it("fails with screen capture is off while yui.screen_capture is off, even with a body that could take one", async () => {
    let shots = 0;
    const ex = scriptedExecutor({ presetId: "yui" }, { windows: [] });
    const body = {
      ...ex,
      presetId: "yui",
      async screenshot(monitor?: number) {
        shots++;
        return ex.screenshot(monitor);
      },
      poke() {},
      dispose() {},
    } as AttachedBody;
    host.body.provide({ attach: () => body });
    const b = await bridgeClient(host);
    try {
      void b.invoke("body_attach", { presetId: "yui" });
      await expect.poll(() => host.body.current()?.presetId).toBe("yui");
      host.store.set(SWITCH_KEYS.screen, { enabled: false }, "test");
      expect(await b.invoke("body_screen", {})).toMatchObject({ ok: false, error: SCREEN_OFF });
      expect(SCREEN_OFF).toBe("screen capture is off");
      expect(shots).toBe(0);
      // The switch on: the same call reaches the body and takes the picture.
      host.store.set(SWITCH_KEYS.screen, { enabled: true }, "test");
      const on = await b.invoke("body_screen", {});
      expect(on.ok).toBe(true);
      expect(shots).toBe(1);
      // Read at each call: off again refuses again.
      host.store.set(SWITCH_KEYS.screen, { enabled: false }, "test");
      expect(await b.invoke("body_screen", { monitor: 0 })).toMatchObject({ ok: false, error: SCREEN_OFF });
      expect(shots).toBe(1);
    } finally {
      b.close();
      host.body.provide(null);
    }
  });
});

describe("relation_rate", () => {
  it("answers off (the tool's error: relations are off) while yui.relations is off, and changes nothing", async () => {
    const b = await bridgeClient(host);
    try {
      const rate = { presetId: "yui", target: "user", delta: 1, why: "a kind word" };
      host.store.set(SWITCH_KEYS.relations, { enabled: false }, "test");
      const before = host.store.get("yui.yui.relations");
      expect(await b.invoke("relation_rate", rate)).toMatchObject({ ok: true, value: { off: true } });
      expect(host.store.get("yui.yui.relations")).toEqual(before);
      host.store.set(SWITCH_KEYS.relations, { enabled: true }, "test");
      const on = await b.invoke("relation_rate", rate);
      expect(on.value).toMatchObject({ off: false, applied: 1 });
      expect(host.store.get("yui.yui.relations")).not.toEqual(before);
    } finally {
      b.close();
    }
  });
});
