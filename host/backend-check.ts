/**
 * The first run's check (docs/desktop.md "The first run"): whether each open character's backend answers. At
 * start, again every DOWN_MS while one does not, every UP_MS while all do, and at once when the characters or
 * their settings change, the host asks `<base_url>/models` (any HTTP answer counts: a backend that wants a key
 * still answers) and writes what it found to `yui.<presetId>.backend_check` when that changed. Her window reads
 * it and says what to do; the desktop puts a sign on the tray while one does not answer (`onChange`).
 */
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { activePresetId, getPreset, openPetIds } from "../src/app/presets/presets.ts";
import { type BackendStatus, BackendStatusSchema, backendStatusKey } from "../src/protocol/backend-status.ts";
import { PRESET_KEYS } from "../src/protocol/preset.ts";
import { reasonOf } from "./net.ts";
import type { Store } from "./store/store.ts";

/** How often a backend that does not answer is asked again, and one that answers. */
export const BACKEND_CHECK = { downMs: 5_000, upMs: 60_000, timeoutMs: 3_000 } as const;

/** Whether `<base>/models` answers anything over HTTP within `timeoutMs`: "" when it does, else why not. */
export function probe(base: string, timeoutMs: number = BACKEND_CHECK.timeoutMs): Promise<string> {
  return new Promise((resolve) => {
    let url: URL;
    try {
      url = new URL(`${base.replace(/\/+$/, "")}/models`);
    } catch {
      resolve("the base URL is not valid");
      return;
    }
    const send = url.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(url, { method: "GET", timeout: timeoutMs }, (res) => {
      res.resume();
      resolve("");
    });
    req.on("timeout", () => req.destroy(Object.assign(new Error("no answer"), { code: "ETIMEDOUT" })));
    req.on("error", (e) => resolve(reasonOf(e)));
    req.end();
  });
}

/** What one character's check found: push backends are not checked here (their relay says). */
export async function checkPreset(store: Store, id: string): Promise<BackendStatus | null> {
  const p = getPreset(store, id);
  if (!p || p.backend.transport === "push") return null;
  const base = p.backend.base_url ?? "";
  if (!base) return { ok: false, base_url: "", reason: "no base URL" };
  const reason = await probe(base);
  return { ok: !reason, base_url: base, reason };
}

export interface BackendWatch {
  /** Checks every open character now. */
  check(): Promise<void>;
  /** The characters whose backend does not answer, with what was found. */
  down(): Map<string, BackendStatus>;
  stop(): void;
}

/**
 * Checks main's and the pets' backends now and from now on; `onChange` hears the characters whose backend
 * does not answer whenever that set or what was found changes.
 */
export function watchBackends(o: {
  store: Store;
  onChange?: (down: Map<string, BackendStatus>) => void;
  every?: { downMs: number; upMs: number };
}): BackendWatch {
  const every = o.every ?? BACKEND_CHECK;
  const down = new Map<string, BackendStatus>();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let running: Promise<void> | null = null;
  let again = false;
  let last = "";

  const once = async () => {
    const ids = [activePresetId(o.store), ...openPetIds(o.store)];
    const found = await Promise.all(ids.map(async (id) => [id, await checkPreset(o.store, id)] as const));
    if (stopped) return;
    down.clear();
    for (const [id, status] of found) {
      if (!status) continue;
      if (!status.ok) down.set(id, status);
      const was = BackendStatusSchema.safeParse(o.store.get(backendStatusKey(id)));
      if (!was.success || JSON.stringify(was.data) !== JSON.stringify(status))
        o.store.set(backendStatusKey(id), status, "app");
    }
    const now = JSON.stringify([...down]);
    if (now !== last) {
      last = now;
      o.onChange?.(new Map(down));
    }
  };
  const check = async (): Promise<void> => {
    // One check at a time; a request meanwhile runs once more after it.
    if (running) {
      again = true;
      return running;
    }
    clearTimeout(timer);
    running = once().finally(() => {
      running = null;
      if (stopped) return;
      if (again) {
        again = false;
        void check();
        return;
      }
      timer = setTimeout(() => void check(), down.size ? every.downMs : every.upMs);
    });
    return running;
  };
  const offStore = o.store.onChange((c) => {
    if (c.key === PRESET_KEYS.list || c.key === PRESET_KEYS.active || c.key === PRESET_KEYS.open)
      void check();
  });
  void check();
  return {
    check,
    down: () => new Map(down),
    stop() {
      stopped = true;
      clearTimeout(timer);
      offStore();
    },
  };
}
