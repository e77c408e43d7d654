/**
 * The host's body slot over the real bridge (docs/body.md "The avatar executor"): without a desktop
 * body_attach answers unsupported and the body commands answer the spec's missing-executor words; with one,
 * the window that holds body_attach lends its body until it lets go, a newer holder takes over, and closing
 * the holder's connection lets go too. The bodies here are scripted executors (the real one needs an X
 * desktop: tests/desktop-body.test.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "@yui/mod-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SWITCH_KEYS } from "../../src/protocol/store-keys.ts";
import { scriptedExecutor } from "../ingress/testing.ts";
import type { AttachedBody, BodyProvider } from "./body-slot.ts";
import { type Host, startHost } from "./server.ts";
import { bridgeClient } from "./testing.ts";

let host: Host;
let dataDir = "";
/** Bodies handed out, by preset, with whether they were disposed. */
const made: { presetId: string; body: AttachedBody; disposed: boolean }[] = [];
const provider: BodyProvider = {
  attach(presetId) {
    if (presetId === "nowhere") return null;
    const ex = scriptedExecutor({ presetId }, { windows: [] });
    const entry = {
      presetId,
      disposed: false,
      body: {
        ...ex,
        presetId,
        poke() {},
        dispose() {
          entry.disposed = true;
        },
      } as AttachedBody,
    };
    made.push(entry);
    return entry.body;
  },
};

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "yui-body-slot-"));
  host = await startHost({ port: 0, dataDir, browserCommands: false });
});
afterAll(async () => {
  await host.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe("main's body in the host", () => {
  it("without a desktop: body_attach answers unsupported, body_action its bare word, the reads fail with it", async () => {
    const b = await bridgeClient(host);
    try {
      expect(await b.invoke("body_attach", { presetId: "yui" })).toMatchObject({
        ok: true,
        value: "unsupported",
      });
      expect(await b.invoke("body_action", { action: "stand" })).toMatchObject({
        ok: true,
        value: "unsupported",
      });
      expect(await b.invoke("body_read", { at: "body" })).toMatchObject({ ok: false, error: "unsupported" });
      // The screen capture switch on: what answers is the missing body (off, the switch would: switches.test.ts).
      host.store.set(SWITCH_KEYS.screen, { enabled: true }, "test");
      expect(await b.invoke("body_screen", {})).toMatchObject({ ok: false, error: "unsupported" });
      expect(await b.invoke("body_poke", {})).toMatchObject({ ok: true, value: null });
      // Arguments are the contract's: an action without the field it needs is refused before any body is asked.
      const bad = await b.invoke("body_action", { action: "sit_on_window" });
      expect(bad.ok).toBe(false);
      expect(bad.error).toMatch(/^invalid arguments: /);
    } finally {
      b.close();
    }
  });

  it("lends the holder's body until it lets go; a newer holder takes over; a closed connection lets go", async () => {
    host.body.provide(provider);
    const first = await bridgeClient(host);
    const second = await bridgeClient(host);
    try {
      expect(await first.invoke("body_attach", { presetId: "nowhere" })).toMatchObject({
        ok: true,
        value: "unsupported",
      });
      const held = first.invoke("body_attach", { presetId: "yui" });
      await waitFor("yui's body attached", async () => host.body.current()?.presetId === "yui");
      expect(await second.invoke("body_read", { at: "body" })).toMatchObject({
        ok: true,
        value: { presetId: "yui" },
      });
      expect(
        await second.invoke("body_action", { action: "move_to", spot: "center", monitor: 1 }),
      ).toMatchObject({
        ok: true,
        value: "ok",
      });

      // Another main (a reload, another character made main) takes over: the first hold answers detached.
      const taken = second.invoke("body_attach", { presetId: "mika" });
      expect(await held).toMatchObject({ ok: true, value: "detached" });
      expect(made.find((m) => m.presetId === "yui")?.disposed).toBe(true);
      expect(host.body.current()?.presetId).toBe("mika");

      // The holder's window goes away: its connection closes and the body is let go.
      second.close();
      await waitFor("mika's body let go", async () => host.body.current() === null);
      expect(made.find((m) => m.presetId === "mika")?.disposed).toBe(true);
      void taken;
      expect(await first.invoke("body_action", { action: "stand" })).toMatchObject({
        ok: true,
        value: "unsupported",
      });
    } finally {
      first.close();
      second.close();
      host.body.provide(null);
    }
  });
});
