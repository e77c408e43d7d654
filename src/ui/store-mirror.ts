/**
 * The page's mirror of the host's store (secrets excluded): reads are local and synchronous, so the portable
 * modules (presets, relations, tools) run on it as on the host's store; writes apply at once and go to the
 * host, which validates them and tells every window. A write the host refuses is rolled back here.
 * No `update`: the mirror does not know pattern keys' defaults, so read-modify-write goes through the
 * portable modules' own load-then-save (synchronous in one page, so panels of a page never interleave).
 */
import { STORE_CHANGED_EVENT, type StoreChanged } from "../protocol/events.ts";
import type { BridgeClient } from "./bridge-client.ts";

export interface StoreMirror {
  get(key: string): unknown;
  set(key: string, value: unknown, who?: string): void;
  /** Listens to changes of keys matching `match` (a key or a predicate); returns the unsubscribe. */
  watch(match: string | ((key: string) => boolean), fn: (key: string) => void): () => void;
  /** Resolves when every write sent so far has been answered. */
  settled(): Promise<void>;
}

/** Creates the mirror over a bridge; `onError` hears a refused write. */
export function createStoreMirror(bridge: BridgeClient, onError: (message: string) => void): StoreMirror {
  const values = new Map<string, unknown>();
  const watchers = new Set<{ match: (k: string) => boolean; fn: (k: string) => void }>();
  let inflight: Promise<unknown> = Promise.resolve();
  const notify = (key: string) => {
    for (const w of watchers) if (w.match(key)) w.fn(key);
  };
  bridge.onHello((snapshot) => {
    const keys = new Set([...values.keys(), ...Object.keys(snapshot)]);
    values.clear();
    for (const [k, v] of Object.entries(snapshot)) values.set(k, v);
    for (const k of keys) notify(k);
  });
  bridge.on(STORE_CHANGED_EVENT, (p) => {
    const c = p as StoreChanged;
    if (!c.secret) {
      if (c.deleted) values.delete(c.key);
      else values.set(c.key, c.value);
    }
    notify(c.key);
  });

  function set(key: string, value: unknown): void {
    const before = values.get(key);
    values.set(key, value);
    notify(key);
    const p = bridge.invoke("store_set", { key, value }).catch((e: Error) => {
      values.set(key, before);
      notify(key);
      onError(e.message);
    });
    inflight = inflight.then(() => p);
  }

  return {
    get: (key) => values.get(key),
    set,
    watch(match, fn) {
      const w = { match: typeof match === "string" ? (k: string) => k === match : match, fn };
      watchers.add(w);
      return () => watchers.delete(w);
    },
    settled: () => inflight.then(() => undefined),
  };
}
