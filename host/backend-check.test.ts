import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@yui/mod-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { savePreset } from "../src/app/presets/presets.ts";
import { type BackendStatus, backendStatusKey } from "../src/protocol/backend-status.ts";
import { characterPreset } from "../src/protocol/preset.ts";
import { type ScriptedBackend, startScriptedBackend } from "../tools/scripted-backend/server.ts";
import { probe, watchBackends } from "./backend-check.ts";
import { openStore, type Store } from "./store/store.ts";

// The first run's check against real HTTP on loopback: a port where nothing listens, then a backend there.
describe("the backends' check", () => {
  let dir = "";
  let store: Store | null = null;
  let backend: ScriptedBackend | null = null;
  afterEach(async () => {
    store?.close();
    await backend?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("finds a backend that does not answer, writes it, and finds it answering once it starts", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/v1`;
    expect(await probe(base)).toBe("connection refused");
    dir = mkdtempSync(join(tmpdir(), "yui-check-"));
    store = openStore(dir);
    savePreset(store, characterPreset("yui", "Yui", { transport: "chat", base_url: base }));
    const changes: Map<string, BackendStatus>[] = [];
    const watch = watchBackends({
      store,
      onChange: (d) => changes.push(d),
      every: { downMs: 50, upMs: 60_000 },
    });
    try {
      await watch.check();
      expect(store.get(backendStatusKey("yui"))).toEqual({
        ok: false,
        base_url: base,
        reason: "connection refused",
      });
      expect(changes.at(-1)?.get("yui")?.ok).toBe(false);
      backend = await startScriptedBackend([], undefined, { port });
      await expect
        .poll(() => (store!.get(backendStatusKey("yui")) as BackendStatus).ok, { timeout: 10_000 })
        .toBe(true);
      expect(changes.at(-1)?.size).toBe(0);
      // A preset with no base URL says so; a push backend is not checked here.
      savePreset(store, characterPreset("yui", "Yui", { transport: "chat" }));
      await watch.check();
      expect(store.get(backendStatusKey("yui"))).toEqual({ ok: false, base_url: "", reason: "no base URL" });
    } finally {
      watch.stop();
    }
  });
});
