/**
 * bench:store — the host's store (host/store/store.ts: a JSON value per key in SQLite, WAL, synchronous=FULL,
 * with its schema check, revision and change record) against its peer measured in the same run: a bare
 * better-sqlite3 key/value table with the same pragmas, where set is one upsert of JSON.stringify(value) and get
 * one SELECT and JSON.parse. The ratio is what the store adds over SQLite doing the same write and read.
 * Rounds alternate between the two so load changes hit both alike.
 * Run: npx tsx bench/store.ts
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { openStore } from "../host/store/store.ts";
import { emptyRelations, setByUser } from "../src/app/relations/relations.ts";

const ROUNDS = 5;
const SETS = 100;
const GETS = 2000;

interface Side {
  set(key: string, value: unknown): void;
  get(key: string): unknown;
  close(): void;
}

function bare(dir: string): Side {
  const db = new Database(join(dir, "bare.sqlite"));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = FULL");
  db.exec("CREATE TABLE IF NOT EXISTS kv (key TEXT PRIMARY KEY, value TEXT)");
  const upsert = db.prepare<[string, string]>(
    "INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  );
  const select = db.prepare<[string], { value: string }>("SELECT value FROM kv WHERE key = ?");
  return {
    set: (key, value) => upsert.run(key, JSON.stringify(value)),
    get: (key) => {
      const row = select.get(key);
      return row ? JSON.parse(row.value) : undefined;
    },
    close: () => db.close(),
  };
}

function store(dir: string): Side {
  const s = openStore(dir, { pollMs: 10_000 });
  return {
    set: (key, value) => s.set(key, value, "bench"),
    get: (key) => s.get(key),
    close: () => s.close(),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** Milliseconds per call of `fn`, `n` calls. */
function per(n: number, fn: (i: number) => void): number {
  const t = performance.now();
  for (let i = 0; i < n; i++) fn(i);
  return (performance.now() - t) / n;
}

// The values the app writes: a switch, and the largest it writes often (relations with a 500-entry log).
// Each write differs from the one before (SQLite skips rewriting unchanged overflow pages, which would let a
// side that writes nothing else skip the sync).
let relations = emptyRelations();
for (let i = 0; i < 500; i++) relations = setByUser(relations, "user", i % 2 ? 5 : -5, i);
const relationsPair = [relations, setByUser(relations, "user", 7, 500)];
const CASES = [
  ["switch", "yui.browser", (i: number) => ({ enabled: i % 2 === 0 })],
  ["relations", "yui.yui.relations", (i: number) => relationsPair[i % 2]],
] as const;

const dir = mkdtempSync(join(tmpdir(), "yui-store-peer-"));
const sides = { store: store(join(dir, "store")), bare: bare(dir) };
try {
  console.log(`bench:store  median of ${ROUNDS} rounds; set: ${SETS} fsynced writes, get: ${GETS} reads`);
  for (const [label, key, value] of CASES) {
    const t: Record<string, { set: number[]; get: number[] }> = {
      store: { set: [], get: [] },
      bare: { set: [], get: [] },
    };
    for (let r = 0; r < ROUNDS; r++) {
      for (const name of ["store", "bare"] as const) {
        const side = sides[name];
        t[name]!.set.push(per(SETS, (i) => side.set(key, value(i))));
        t[name]!.get.push(per(GETS, () => side.get(key)));
      }
    }
    if (JSON.stringify(sides.store.get(key)) !== JSON.stringify(sides.bare.get(key)))
      throw new Error(`${label}: the store and the bare table read back different values`);
    for (const op of ["set", "get"] as const) {
      const s = median(t.store![op]);
      const b = median(t.bare![op]);
      console.log(
        `  ${op} ${label.padEnd(9)} store ${s.toFixed(3)} ms   peer (bare SQLite) ${b.toFixed(3)} ms   ratio store/peer ${(s / b).toFixed(2)}`,
      );
    }
  }
} finally {
  sides.store.close();
  sides.bare.close();
  rmSync(dir, { recursive: true, force: true });
}
