import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { COMMANDS, parseCommandArgs } from "./commands.ts";
import { CHARACTER_ADDRESSED_EVENT, SIGNAL_EVENT, STORE_CHANGED_EVENT, WINDOW_EVENTS } from "./events.ts";
import { HostFrameSchema, WindowFrameSchema } from "./frames.ts";
import { HISTORY_MAX, RELAY_PING, RELAY_PONG } from "./limits.ts";
import { KEY_TABLE } from "./store-keys.ts";

const dir = import.meta.dirname;
const sources = readdirSync(dir).filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts"));

describe("the contract module", () => {
  it("imports zod and its own files only (no Node API, no DOM, no window's or host's file)", () => {
    expect(sources.length).toBeGreaterThan(5);
    for (const f of sources) {
      const text = readFileSync(join(dir, f), "utf8");
      const specifiers = [...text.matchAll(/\bfrom\s+"([^"]+)"/g)].map((m) => m[1]);
      for (const s of specifiers) {
        expect([f, s] as const).toSatisfy(
          ([, spec]: readonly [string, string]) => spec === "zod" || /^\.\/[a-z-]+\.ts$/.test(spec),
        );
      }
      const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
      expect(code, f).not.toMatch(/\b(document|window|localStorage|location|process|Buffer)\./);
    }
  });

  it("states the spec's names and limits", () => {
    expect(STORE_CHANGED_EVENT).toBe("yui://store-changed");
    expect(CHARACTER_ADDRESSED_EVENT).toBe("yui://character-addressed");
    expect(SIGNAL_EVENT).toBe("yui://signal");
    expect(WINDOW_EVENTS).toEqual(["yui://character-addressed", "yui://face"]);
    expect(HISTORY_MAX).toBe(200);
    expect(RELAY_PING).toBe('{"type":"yui.relay.ping"}');
    expect(RELAY_PONG).toBe('{"type":"yui.relay.pong"}');
  });

  it("lists every store key once, each default valid, the three API keys secret", () => {
    const patterns = KEY_TABLE.map((k) => k.pattern);
    expect(new Set(patterns).size).toBe(patterns.length);
    for (const k of KEY_TABLE) expect(k.schema.safeParse(k.default).success, k.pattern).toBe(true);
    expect(KEY_TABLE.filter((k) => k.secret).map((k) => k.pattern)).toEqual([
      "yui.<presetId>.api_key",
      "yui.<presetId>.voice_api_key",
      "yui.listen_api_key",
    ]);
    expect(patterns).toEqual(
      expect.arrayContaining([
        "yui.browser",
        "yui.relations",
        "yui.screen_capture",
        "yui.agent_notify",
        "yui.presets",
        "yui.presets.active",
        "yui.presets.open",
        "yui.<presetId>.relations",
        "yui.<presetId>.history",
        "yui.rate_limit.addressed_chain_max",
        "yui.<presetId>.voice",
        "yui.voice",
        "yui.listen",
      ]),
    );
  });

  it("parses frames both ways and refuses what does not fit", () => {
    expect(
      WindowFrameSchema.safeParse({ type: "invoke", id: 7, command: "store_set", args: {} }).success,
    ).toBe(true);
    expect(
      WindowFrameSchema.safeParse({ type: "emit", name: "javascript:alert(1)", payload: 1 }).success,
    ).toBe(false);
    expect(WindowFrameSchema.safeParse({ type: "invoke", id: "7", command: "x" }).success).toBe(false);
    expect(
      HostFrameSchema.safeParse({ type: "result", id: 8, ok: false, error: "unknown command: x" }).success,
    ).toBe(true);
    expect(HostFrameSchema.safeParse({ type: "result", id: 8, ok: false }).success).toBe(false);
    expect(HostFrameSchema.safeParse({ type: "hello", snapshot: [] }).success).toBe(false);
  });

  it("checks a command's arguments with the words the host answers", () => {
    expect(parseCommandArgs("signal_claim", { id: "s1" })).toEqual({ id: "s1" });
    expect(() =>
      parseCommandArgs("relation_rate", { presetId: "mika", target: "user", delta: 3, why: "x" }),
    ).toThrow(/^invalid arguments: /);
    expect(() =>
      parseCommandArgs("relation_rate", {
        presetId: "mika",
        target: "user",
        delta: 1,
        why: " Set by the user ",
      }),
    ).toThrow("reserved reason");
    expect(() => parseCommandArgs("browser_run", { presetId: "mika\u2028x", code: "" })).toThrow(
      "must not contain control or line-separator characters",
    );
    expect(Object.keys(COMMANDS)).toContain("history_append");
  });
});
