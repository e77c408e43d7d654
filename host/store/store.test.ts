import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { isSecretKey, registerKeySchema, StoreError } from "./schema.ts";
import { openStore, STORE_FILE, type Store, type StoreChange } from "./store.ts";

registerKeySchema({ pattern: "test.counter", schema: z.int().nonnegative(), default: 0, doc: "test" });

const WRITER = new URL("./fixtures/writer.ts", import.meta.url).pathname;

function runWriter(dir: string, ...args: string[]): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", WRITER, dir, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
}

let dir: string;
let stores: Store[];
const open = (options?: Parameters<typeof openStore>[1]) => {
  const s = openStore(dir, options);
  stores.push(s);
  return s;
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "yui-store-"));
  stores = [];
});
afterEach(() => {
  for (const s of stores) s.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the store", () => {
  it("answers a key's registered default while it is unset", () => {
    const s = open();
    expect(s.get("yui.browser")).toEqual({ enabled: false });
    expect(s.get("yui.relations")).toEqual({ enabled: true });
    expect(s.get("yui.screen_capture")).toEqual({ enabled: false });
    expect(s.get("yui.rate_limit.addressed_chain_max")).toBe(4);
    expect(s.get("yui.mika.relations")).toEqual({ values: {}, log: [], spent: {} });
    expect(s.has("yui.browser")).toBe(false);
    expect(s.list()).toEqual([]);
  });

  it("keeps values across a reopen, in WAL mode", () => {
    const a = open();
    a.set("yui.browser", { enabled: true }, "user");
    a.close();
    const b = open();
    expect(b.get("yui.browser")).toEqual({ enabled: true });
    expect(b.list()).toEqual(["yui.browser"]);
    const db = new Database(join(dir, STORE_FILE), { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("refuses an unknown key and a value its schema refuses, naming the problem", () => {
    const s = open();
    expect(() => s.set("yui.nope", 1)).toThrow(new StoreError("unknown key yui.nope"));
    expect(() => s.set("yui.browser", { enabled: "yes" })).toThrow(
      /^invalid value for yui.browser: enabled: /,
    );
    expect(() => s.set("yui.mika.relations", { values: { user: 21 } })).toThrow(/values.user/);
    // A preset id that is not a slug does not match the pattern at all.
    expect(() => s.set("yui.Bad Id.relations", {})).toThrow(
      new StoreError("unknown key yui.Bad Id.relations"),
    );
    expect(s.list()).toEqual([]);
  });

  it("delete brings a key back to its default and out of list", () => {
    const s = open();
    s.set("yui.screen_capture", { enabled: true });
    expect(s.delete("yui.screen_capture")).toBe(true);
    expect(s.delete("yui.screen_capture")).toBe(false);
    expect(s.get("yui.screen_capture")).toEqual({ enabled: false });
    expect(s.list()).toEqual([]);
  });

  it("update reads and writes one key in one validated transaction", () => {
    const s = open();
    s.set("test.counter", 5);
    expect(s.update<number>("test.counter", (n) => n + 1)).toBe(6);
    expect(() => s.update<number>("test.counter", () => -1)).toThrow(StoreError);
    expect(s.get("test.counter")).toBe(6);
  });

  it("update writes nothing and tells no one when fn hands back its argument", () => {
    const s = open();
    s.set("test.counter", 1);
    const seen: StoreChange[] = [];
    s.onChange((c) => seen.push(c));
    expect(s.update<number>("test.counter", (n) => n)).toBe(1);
    expect(seen).toEqual([]);
  });

  it("transaction commits several keys together, and tells listeners only after the commit", () => {
    const s = open();
    const other = open();
    const seen: string[] = [];
    s.onChange((c) => seen.push(`${c.key}=${JSON.stringify(c.value)}`));
    const out = s.transaction(() => {
      s.set("yui.browser", { enabled: true });
      s.update<number>("test.counter", (n) => n + 2);
      // Another connection sees nothing of it yet, and no listener was told.
      expect(other.get("yui.browser")).toEqual({ enabled: false });
      expect(seen).toEqual([]);
      return s.get("test.counter");
    });
    expect(out).toBe(2);
    expect(seen).toEqual(['yui.browser={"enabled":true}', "test.counter=2"]);
    expect([other.get("yui.browser"), other.get("test.counter")]).toEqual([{ enabled: true }, 2]);
  });

  it("transaction writes nothing and tells no one when its function throws", () => {
    const s = open();
    s.set("test.counter", 7);
    const seen: StoreChange[] = [];
    s.onChange((c) => seen.push(c));
    expect(() =>
      s.transaction(() => {
        s.set("yui.browser", { enabled: true });
        s.delete("test.counter");
        throw new Error("changed my mind");
      }),
    ).toThrow("changed my mind");
    expect([s.get("yui.browser"), s.get("test.counter")]).toEqual([{ enabled: false }, 7]);
    expect(seen).toEqual([]);
    s.set("yui.browser", { enabled: true });
    expect(seen.map((c) => c.key)).toEqual(["yui.browser"]);
  });

  it("keeps telling the other listeners when one throws", () => {
    const s = open();
    const seen: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation(() => {});
    s.onChange(() => {
      throw new Error("boom");
    });
    s.onChange((c) => seen.push(c.key));
    s.set("yui.browser", { enabled: true });
    expect(seen).toEqual(["yui.browser"]);
    expect(spy).toHaveBeenCalledOnce();
    spy.mockRestore();
  });

  it("answers the default for a stored row that no longer fits its schema, instead of crashing", () => {
    const s = open();
    s.set("yui.browser", { enabled: true });
    const db = new Database(join(dir, STORE_FILE));
    db.prepare("UPDATE kv SET value = ? WHERE key = ?").run("{not json", "yui.browser");
    db.prepare("INSERT INTO kv (key, value, who, at, rev) VALUES (?, ?, ?, ?, ?)").run(
      "yui.relations",
      JSON.stringify({ enabled: 3 }),
      "x",
      0,
      99,
    );
    db.close();
    expect(s.get("yui.browser")).toEqual({ enabled: false });
    expect(s.get("yui.relations")).toEqual({ enabled: true });
  });

  it("tells listeners of its own writes at once, with who wrote them, and stops after unsubscribe", () => {
    const s = open();
    const seen: StoreChange[] = [];
    const off = s.onChange((c) => seen.push(c));
    s.set("yui.browser", { enabled: true }, "user");
    s.delete("yui.browser", "cli");
    off();
    s.set("yui.browser", { enabled: true }, "user");
    expect(seen.map(({ key, value, deleted, who }) => ({ key, value, deleted, who }))).toEqual([
      { key: "yui.browser", value: { enabled: true }, deleted: false, who: "user" },
      { key: "yui.browser", value: { enabled: false }, deleted: true, who: "cli" },
    ]);
    expect(seen[1]!.rev).toBeGreaterThan(seen[0]!.rev);
  });

  it("marks secret keys on changes and leaves their value out, so a bridge cannot leak them", () => {
    const s = open();
    const seen: StoreChange[] = [];
    s.onChange((c) => seen.push(c));
    s.set("yui.mika.api_key", "sk-test");
    expect(isSecretKey("yui.mika.api_key")).toBe(true);
    expect(isSecretKey("yui.presets")).toBe(false);
    expect(seen[0]).toMatchObject({ key: "yui.mika.api_key", secret: true, value: undefined });
    expect(JSON.stringify(seen)).not.toContain("sk-test");
    expect(s.get("yui.mika.api_key")).toBe("sk-test");
  });

  it("lets another module register its own key", () => {
    registerKeySchema({
      pattern: "test.<presetId>.volume",
      schema: z.number().min(0).max(1),
      default: 0.5,
      doc: "test",
    });
    const s = open();
    expect(s.get("test.mika.volume")).toBe(0.5);
    s.set("test.mika.volume", 0.25);
    expect(s.get("test.mika.volume")).toBe(0.25);
    expect(() => s.set("test.mika.volume", 2)).toThrow(StoreError);
  });

  it("shows a write made by another process to this process's listeners", async () => {
    const s = open({ pollMs: 20 });
    const seen: StoreChange[] = [];
    s.onChange((c) => seen.push(c));
    const child = runWriter(dir, "once", "yui.browser", '{"enabled":true}', "yui-chat");
    expect((await exited(child)).code).toBe(0);
    await vi.waitFor(() => expect(seen).toHaveLength(1), { timeout: 10_000, interval: 20 });
    expect(seen[0]).toMatchObject({ key: "yui.browser", value: { enabled: true }, who: "yui-chat" });
    expect(s.get("yui.browser")).toEqual({ enabled: true });
  });

  it("loses no increment when several processes update one key at once", async () => {
    const children = [1, 2, 3].map(() => runWriter(dir, "incr", "40"));
    const codes = await Promise.all(children.map(exited));
    expect(codes.map((c) => c.code)).toEqual([0, 0, 0]);
    expect(open().get("test.counter")).toBe(120);
  });

  it("keeps the store readable by the user only (it holds API keys)", () => {
    const fresh = join(dir, "fresh");
    const s = openStore(fresh);
    stores.push(s);
    s.set("yui.mika.api_key", "sk-test");
    expect(statSync(fresh).mode & 0o077).toBe(0);
    for (const f of [STORE_FILE, `${STORE_FILE}-wal`, `${STORE_FILE}-shm`]) {
      expect(statSync(join(fresh, f)).mode & 0o077, f).toBe(0);
    }
  });

  it("makes an existing data directory and store file private again at every open (0700, 0600)", () => {
    const loose = join(dir, "loose");
    const first = openStore(loose);
    first.set("yui.mika.api_key", "sk-test");
    first.close();
    // As an older YUI, a copy or a wide umask could have left them.
    chmodSync(loose, 0o755);
    for (const f of [STORE_FILE, `${STORE_FILE}-wal`, `${STORE_FILE}-shm`]) {
      if (existsSync(join(loose, f))) chmodSync(join(loose, f), 0o644);
    }
    expect(statSync(join(loose, STORE_FILE)).mode & 0o777).toBe(0o644);
    const again = openStore(loose);
    stores.push(again);
    expect(statSync(loose).mode & 0o777).toBe(0o700);
    expect(statSync(join(loose, STORE_FILE)).mode & 0o777).toBe(0o600);
    again.set("yui.mika.api_key", "sk-test-2");
    for (const f of [`${STORE_FILE}-wal`, `${STORE_FILE}-shm`]) {
      expect(statSync(join(loose, f)).mode & 0o777, f).toBe(0o600);
    }
  });

  it("survives SIGKILL in a burst of writes, losing at most the write in flight", async () => {
    // One round: each writer start costs seconds on a loaded machine; the kill lands mid-burst either way.
    for (const killAfter of [100]) {
      const child = runWriter(dir, "burst");
      const reported: number[] = [];
      let buf = "";
      child.stdout!.on("data", (d: Buffer) => {
        buf += d.toString();
        const lines = buf.split("\n");
        buf = lines.pop()!;
        for (const l of lines) reported.push(Number(l));
      });
      const done = exited(child);
      await vi.waitFor(() => expect(reported.length).toBeGreaterThanOrEqual(killAfter), {
        timeout: 60_000,
        interval: 5,
      });
      child.kill("SIGKILL");
      expect((await done).signal).toBe("SIGKILL");
      const last = reported.at(-1)!;

      const db = new Database(join(dir, STORE_FILE));
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      db.close();
      const s = openStore(dir);
      const counter = s.get("test.counter") as number;
      // Every reported write is there; at most the one in flight (committed, not yet reported) is extra.
      expect([last, last + 1]).toContain(counter);
      const rel = s.get("yui.burst.relations") as { values: { user: number } };
      expect([last % 21, (last + 1) % 21]).toContain(rel.values.user);
      s.close();
    }
  });

  it("refuses calls after close", () => {
    const s = openStore(dir);
    s.close();
    expect(() => s.get("yui.browser")).toThrow(new StoreError("the store is closed"));
  });
});
