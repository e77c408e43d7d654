/**
 * The host's embedded key-value store: SQLite (better-sqlite3) in WAL mode under `dataDir()`.
 * Synchronous by design: each call is one short transaction, durable when it returns (synchronous=FULL).
 * Several processes may open one store (the host and a `yui chat`); each sees the others' writes through
 * `onChange`, which polls `PRAGMA data_version` (it changes only when another connection committed) and
 * then reads the rows whose revision passed the last one seen. See docs/store.md.
 */
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { dataDir } from "../paths.ts";
import { defaultValue, isSecretKey, keySpec, StoreError, validateValue } from "./schema.ts";

/** The store file's name inside the data directory. */
export const STORE_FILE = "store.sqlite3";

/** How often a store with listeners checks for other processes' writes, in ms. */
export const DEFAULT_POLL_MS = 100;

/**
 * One change as listeners see it. `value` is the new value, or the key's default after a delete; for a secret
 * key it is left out (undefined) so a listener that forwards changes cannot leak it: read it with `get`.
 */
export interface StoreChange {
  key: string;
  value: unknown;
  deleted: boolean;
  /** Who wrote it: "app", "cli", "user", a preset id, ... as the writer said. */
  who: string;
  /** The store-wide revision of this change (increasing). */
  rev: number;
  /** Secret keys (API keys): a bridge must not forward these to a page. */
  secret: boolean;
}

export type ChangeListener = (change: StoreChange) => void;

/** The store's synchronous API. */
export interface Store {
  /** The SQLite file. */
  readonly path: string;
  /** The value of `key`, or its registered default when unset (undefined for an unknown unset key). */
  get(key: string): unknown;
  /** Whether `key` holds a stored value (not just its default). */
  has(key: string): boolean;
  /** Validates and writes `value`; throws StoreError on an unknown key or a refused value. */
  set(key: string, value: unknown, who?: string): void;
  /**
   * Reads, transforms and writes one key in one transaction no other process can interleave; `fn` returning
   * its argument itself writes nothing. Returns the value now stored.
   */
  update<T>(key: string, fn: (current: T) => T, who?: string): T;
  /**
   * Runs `fn` in one transaction no other process can interleave: every get, set, update and delete it makes
   * commits together, or none does when it throws (the error is rethrown). Listeners hear the changes once
   * they are committed. Use it for a change that reads and writes several keys (the preset list, say).
   */
  transaction<T>(fn: () => T): T;
  /** Removes a stored value (the key reads its default again); false when nothing was stored. */
  delete(key: string, who?: string): boolean;
  /** The keys holding a stored value, sorted. */
  list(): string[];
  /** Calls `listener` for every change from this or another process; returns the unsubscribe. */
  onChange(listener: ChangeListener): () => void;
  /** Delivers other processes' pending changes now instead of at the next poll. */
  poll(): void;
  close(): void;
}

export interface OpenStoreOptions {
  /** Poll interval for other processes' writes, in ms. */
  pollMs?: number;
  /** Clock for the rows' write time. */
  now?: () => number;
}

interface Row {
  key: string;
  value: string | null;
  who: string;
  rev: number;
}

/**
 * Makes the data directory and the store's files the user's alone (0700, 0600), at every open: a directory or
 * file made before (by an older YUI, a copy, a umask) keeps loose modes otherwise, with API keys inside.
 */
export function tightenModes(dir: string, path: string): void {
  const tighten = (p: string, mode: number) => {
    try {
      if ((statSync(p).mode & 0o777) !== mode) chmodSync(p, mode);
    } catch (e) {
      // A file that is not there (no -wal yet) needs nothing; one we may not change is said once, not fatal.
      const code = (e as { code?: string }).code;
      if (code !== "ENOENT") process.stderr.write(`store: could not make ${p} private (${code ?? e})\n`);
    }
  };
  tighten(dir, 0o700);
  for (const f of [path, `${path}-wal`, `${path}-shm`]) tighten(f, 0o600);
}

/** Opens (creating) the store's SQLite file in `dir`, the user's alone, in WAL mode with its one table. */
function openDatabase(dir: string): { path: string; db: Database.Database } {
  // The store holds API keys: the directory and the files are the user's alone (SQLite gives the -wal and
  // -shm files the main file's mode).
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, STORE_FILE);
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  tightenModes(dir, path);
  const db = new Database(path, { timeout: 5000 });
  db.pragma("journal_mode = WAL");
  // FULL: a commit is on disk when set() returns, so a SIGKILL (or power cut) loses only the write in flight.
  db.pragma("synchronous = FULL");
  db.exec(`CREATE TABLE IF NOT EXISTS kv (
    key TEXT PRIMARY KEY,
    value TEXT,            -- JSON; NULL marks a deleted key so other processes still see the delete
    who TEXT NOT NULL,
    at INTEGER NOT NULL,
    rev INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS kv_rev ON kv(rev);`);
  return { path, db };
}

/** A row's value: its JSON checked against the key's schema, or the key's default (deleted, unreadable, stale). */
function decodeRow(row: Row): unknown {
  if (row.value === null) return defaultValue(row.key);
  try {
    const raw: unknown = JSON.parse(row.value);
    // A row written before a schema change may no longer fit: answer the default rather than crash.
    const spec = keySpec(row.key);
    if (!spec) return raw;
    const parsed = spec.schema.safeParse(raw);
    return parsed.success ? parsed.data : defaultValue(row.key);
  } catch {
    return defaultValue(row.key);
  }
}

/** The store's prepared statements over its one table. */
function statements(db: Database.Database) {
  return {
    selectOne: db.prepare<[string], Row>("SELECT key, value, who, rev FROM kv WHERE key = ?"),
    selectSince: db.prepare<[number], Row>("SELECT key, value, who, rev FROM kv WHERE rev > ? ORDER BY rev"),
    selectKeys: db.prepare<[], { key: string }>("SELECT key FROM kv WHERE value IS NOT NULL ORDER BY key"),
    maxRev: db.prepare<[], { rev: number }>("SELECT coalesce(max(rev), 0) AS rev FROM kv"),
    upsert: db.prepare<[string, string | null, string, number, number]>(
      `INSERT INTO kv (key, value, who, at, rev) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT(key) DO UPDATE SET value = excluded.value, who = excluded.who, at = excluded.at, rev = excluded.rev`,
    ),
  };
}

/** Tells every listener the change a row makes (a secret key's value withheld). */
function tell(listeners: Set<ChangeListener>, row: Row): void {
  const secret = isSecretKey(row.key);
  const change: StoreChange = {
    key: row.key,
    value: secret ? undefined : decodeRow(row),
    deleted: row.value === null,
    who: row.who,
    rev: row.rev,
    secret,
  };
  for (const l of [...listeners]) {
    try {
      l(change);
    } catch (err) {
      // One failing listener must neither starve the others nor break the writer (nor crash the host).
      console.error(`store: a change listener for ${row.key} failed:`, err);
    }
  }
}

/** Opens (creating if needed) the store in `dir`, by default `dataDir()`; the caller closes it. */
export function openStore(dir: string = dataDir(), options: OpenStoreOptions = {}): Store {
  const { path, db } = openDatabase(dir);
  const now = options.now ?? Date.now;
  const pollMs = options.pollMs ?? DEFAULT_POLL_MS;
  const { selectOne, selectSince, selectKeys, maxRev, upsert } = statements(db);

  const listeners = new Set<ChangeListener>();
  // Inside transaction(): changes are told once the outer transaction commits, never before.
  let txDepth = 0;
  const told = () => {
    if (txDepth === 0) flush();
  };
  let lastRev = maxRev.get()!.rev;
  let dataVersion = db.pragma("data_version", { simple: true }) as number;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  function check(): void {
    if (closed) throw new StoreError("the store is closed");
  }

  function write(key: string, json: string | null, who: string): void {
    const rev = maxRev.get()!.rev + 1;
    upsert.run(key, json, who, now(), rev);
  }

  // Emits every row past lastRev, ours and other processes' alike, in revision order.
  function flush(): void {
    if (closed) return;
    dataVersion = db.pragma("data_version", { simple: true }) as number;
    const rows = selectSince.all(lastRev);
    for (const row of rows) {
      lastRev = Math.max(lastRev, row.rev);
      tell(listeners, row);
    }
  }

  function pollTick(): void {
    if (closed) return;
    const v = db.pragma("data_version", { simple: true }) as number;
    if (v !== dataVersion) flush();
  }

  function syncTimer(): void {
    if (listeners.size > 0 && !timer && !closed) {
      timer = setInterval(pollTick, pollMs);
      timer.unref();
    } else if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  }

  const setTx = db.transaction((key: string, json: string, who: string) => write(key, json, who));
  const deleteTx = db.transaction((key: string, who: string): boolean => {
    const row = selectOne.get(key);
    if (!row || row.value === null) return false;
    write(key, null, who);
    return true;
  });

  const store: Store = {
    path,
    get(key) {
      check();
      const row = selectOne.get(key);
      return row ? decodeRow(row) : defaultValue(key);
    },
    has(key) {
      check();
      const row = selectOne.get(key);
      return !!row && row.value !== null;
    },
    set(key, value, who = "app") {
      check();
      const parsed = validateValue(key, value);
      setTx.immediate(key, JSON.stringify(parsed), who);
      told();
    },
    update<T>(key: string, fn: (current: T) => T, who = "app"): T {
      check();
      const tx = db.transaction((): { next: T; wrote: boolean } => {
        const row = selectOne.get(key);
        const current = (row ? decodeRow(row) : defaultValue(key)) as T;
        const input = structuredClone(current);
        const out = fn(input);
        // Handing back the argument itself means "no change": nothing is written, no one is told.
        if (out === input) return { next: current, wrote: false };
        const next = validateValue(key, out) as T;
        write(key, JSON.stringify(next), who);
        return { next, wrote: true };
      });
      const { next, wrote } = tx.immediate();
      if (wrote) told();
      return next;
    },
    transaction<T>(fn: () => T): T {
      check();
      const tx = db.transaction((): T => {
        txDepth += 1;
        try {
          return fn();
        } finally {
          txDepth -= 1;
        }
      });
      try {
        return tx.immediate();
      } finally {
        // Committed: tell the listeners. Rolled back: the rows are gone, and lastRev never moved past them.
        if (txDepth === 0) flush();
      }
    },
    delete(key, who = "app") {
      check();
      const removed = deleteTx.immediate(key, who);
      if (removed) told();
      return removed;
    },
    list() {
      check();
      return selectKeys.all().map((r) => r.key);
    },
    onChange(listener) {
      check();
      listeners.add(listener);
      syncTimer();
      return () => {
        listeners.delete(listener);
        syncTimer();
      };
    },
    poll() {
      check();
      flush();
    },
    close() {
      if (closed) return;
      listeners.clear();
      syncTimer();
      closed = true;
      db.close();
    },
  };
  return store;
}
