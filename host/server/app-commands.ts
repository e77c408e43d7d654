/**
 * The commands the windows invoke over the bridge (docs/app.md): store writes (never a secret's value back),
 * API keys (write-only), the backend's model list and connection test, the vocabulary file, the user's
 * relation slider, and the browser tool's host side.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import {
  closePet,
  getPreset,
  openPet,
  removePreset,
  savePreset,
  setActivePreset,
} from "../../src/app/presets/presets.ts";
import { rateRelation, setRelationByUser } from "../../src/app/relations/access.ts";
import { switchStates } from "../../src/app/switches.ts";
import { DEFAULT_VOCABULARY, parseVocabulary } from "../../src/app/vocabulary/vocabulary.ts";
import { RELATION_RATE_COMMAND } from "../../src/protocol/commands.ts";
import { type HistoryEntry, historyKey } from "../../src/protocol/history.ts";
import { hasKey } from "../../src/protocol/keys.ts";
import { HISTORY_MAX } from "../../src/protocol/limits.ts";
import { PRESET_ID_SOURCE, PRESET_KEYS, type Preset } from "../../src/protocol/preset.ts";
import { registerBrowserCommands } from "../browser/commands.ts";
import type { CommandTable } from "../commands.ts";
import { bindKey, keyDestinations, presetKeyOrigins } from "../keys.ts";
import { reasonOf } from "../net.ts";
import { isSecretKey } from "../store/schema.ts";
import type { Store } from "../store/store.ts";
import { PROXY_ERRORS, upstreamUrl } from "./proxy.ts";

/** The generic store commands' refusal of a key with commands of its own, written once. */
export const STORE_ERRORS = {
  owned: (key: string, commands: string) => `${key} changes only through its own commands (${commands})`,
} as const;

const PRESET_COMMANDS = "preset_save, preset_remove, preset_activate, pet_open, pet_close";
const byPreset = (suffix: string) => new RegExp(`^yui\\.${PRESET_ID_SOURCE}\\.${suffix}$`);
const OWNED: readonly { match: (key: string) => boolean; commands: string }[] = [
  {
    match: (k) => k === PRESET_KEYS.list || k === PRESET_KEYS.active || k === PRESET_KEYS.open,
    commands: PRESET_COMMANDS,
  },
  { match: (k) => byPreset("history").test(k), commands: "history_append" },
  { match: (k) => byPreset("relations").test(k), commands: "relation_rate, relation_set_by_user" },
];

/**
 * The commands that own `key`, when it has some: the preset list, a conversation and relations change only
 * through them (one transaction each, checked), never a window's whole-value store_set.
 */
export function ownedBy(key: string): string | undefined {
  return OWNED.find((o) => o.match(key))?.commands;
}

/** The key commands' refusals, written once. */
export const KEY_ERRORS = {
  noDestination:
    "set the backend's base URL (or push URL) first: a key is kept for the address it is saved for",
} as const;

/** Connection-test verdicts, written once (the settings show them as is). */
export const TEST_VERDICTS = {
  ok: (n: number) => (n ? `Connected: the backend lists ${n} model${n === 1 ? "" : "s"}.` : "Connected."),
  noList: (status: number) => `Connected, but the backend offers no model list (HTTP ${status} on /models).`,
  auth: (status: number) => `The backend refused the API key (HTTP ${status}). Check the key in settings.`,
  status: (status: number) => `The backend answered HTTP ${status} on /models.`,
  unreachable: (url: string, reason: string) => `Cannot reach ${url} (${reason}). Is the backend running?`,
  noBase: "This preset has no base URL yet.",
} as const;

export interface AppCommandDeps {
  store: Store;
  /** The key for a preset's backend when it may go to `destination` (host/keys.ts). */
  apiKey(preset: Preset, destination: string): string | undefined;
  /** The vocabulary file (data directory). */
  vocabularyFile: string;
  fetch?: typeof fetch;
  /** Mount browser_run/browser_guide: the desktop app's host only. Default false. */
  browser?: boolean;
}

/** Registers every app command on the table; resolves once the browser commands are mounted. */
export async function registerAppCommands(table: CommandTable, deps: AppCommandDeps): Promise<void> {
  const { store } = deps;
  const fetchFn = deps.fetch ?? fetch;
  const presetOf = ({ presetId }: { presetId: string }): Preset => {
    const p = getPreset(store, presetId);
    if (!p) throw new Error(`unknown preset ${presetId}`);
    return p;
  };

  // The generic writes: never a secret, never a key that has its own commands (each its one transaction).
  const writable = (key: string) => {
    if (isSecretKey(key)) throw new Error(`${key} is a secret: set it with api_key_set`);
    const owner = ownedBy(key);
    if (owner) throw new Error(STORE_ERRORS.owned(key, owner));
  };
  table.register("store_set", async ({ key, value }) => {
    writable(key);
    store.set(key, value, "user");
    return null;
  });
  table.register("store_delete", async ({ key }) => {
    writable(key);
    return store.delete(key, "user");
  });
  // The key is kept with the origins it is saved for (the preset's base URL and push URL now): the host sends it
  // only there, and a change of either drops it (host/keys.ts).
  table.register("api_key_set", async ({ presetId, key }) => {
    if (!key) {
      store.delete(PRESET_KEYS.apiKey(presetId), "user");
      return null;
    }
    const origins = presetKeyOrigins(presetOf({ presetId }));
    if (origins.length === 0) throw new Error(KEY_ERRORS.noDestination);
    store.set(PRESET_KEYS.apiKey(presetId), bindKey(key, origins), "user");
    return null;
  });
  // Whether a key is in force, never the key: stored, or the environment's for the environment's backend.
  table.register("api_key_status", async (args) => {
    const preset = presetOf(args);
    return {
      stored: hasKey(store.get(PRESET_KEYS.apiKey(preset.id))),
      inForce: keyDestinations(preset).some((url) => deps.apiKey(preset, url) !== undefined),
    };
  });

  async function models(preset: Preset, signal?: AbortSignal) {
    const base = preset.backend.base_url?.replace(/\/+$/, "");
    if (!base) return { ok: false, verdict: TEST_VERDICTS.noBase, models: [] as string[] };
    const url = upstreamUrl(base, "models");
    if (!url) return { ok: false, verdict: PROXY_ERRORS.badBaseUrl(preset.name), models: [] };
    const key = deps.apiKey(preset, url.href);
    let res: Response;
    try {
      res = await fetchFn(url, {
        // A redirect is not followed: the key goes to the URL it was checked for, nowhere else.
        redirect: "manual",
        headers: key ? { authorization: `Bearer ${key}` } : {},
        signal: AbortSignal.any([AbortSignal.timeout(10_000), ...(signal ? [signal] : [])]),
      });
    } catch (e) {
      const cause = (e as { cause?: unknown }).cause ?? e;
      return { ok: false, verdict: TEST_VERDICTS.unreachable(base, reasonOf(cause)), models: [] };
    }
    if (res.status === 401 || res.status === 403) {
      return { ok: false, verdict: TEST_VERDICTS.auth(res.status), models: [] };
    }
    if (res.status === 404 || res.status === 405)
      return { ok: true, verdict: TEST_VERDICTS.noList(res.status), models: [] };
    if (!res.ok) return { ok: false, verdict: TEST_VERDICTS.status(res.status), models: [] };
    const body = (await res.json().catch(() => null)) as { data?: { id?: unknown }[] } | null;
    const ids = (body?.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === "string");
    return { ok: true, verdict: TEST_VERDICTS.ok(ids.length), models: ids.sort() };
  }
  table.register("backend_test", async (args, opts) => models(presetOf(args), opts?.signal));

  table.register("vocabulary_get", async () => {
    let text: string;
    try {
      text = readFileSync(deps.vocabularyFile, "utf8");
    } catch {
      return { vocabulary: DEFAULT_VOCABULARY, file: deps.vocabularyFile, shipped: true };
    }
    const r = parseVocabulary(text, deps.vocabularyFile);
    if (!r.ok) return { vocabulary: DEFAULT_VOCABULARY, file: deps.vocabularyFile, error: r.error };
    return { vocabulary: r.value, file: deps.vocabularyFile, shipped: false };
  });
  table.register("vocabulary_set", async (args) => {
    const text = `${JSON.stringify(args.vocabulary ?? null, null, 2)}\n`;
    const r = parseVocabulary(text, deps.vocabularyFile);
    if (!r.ok) throw new Error(r.error);
    mkdirSync(dirname(deps.vocabularyFile), { recursive: true });
    // Whole-file replace: a reader never sees half a vocabulary.
    const tmp = `${deps.vocabularyFile}.${process.pid}.tmp`;
    writeFileSync(tmp, text);
    renameSync(tmp, deps.vocabularyFile);
    return r.value;
  });

  // An addressed turn (or a signal's turn) runs in one window only, even when several tabs show the
  // character: the first window to claim it runs it.
  const claimed = new Set<string>();
  const claimOnce = (key: string): boolean => {
    if (claimed.has(key)) return false;
    claimed.add(key);
    if (claimed.size > 1024) claimed.delete(claimed.values().next().value!);
    return true;
  };
  table.register("addressed_claim", async ({ presetId, turnId }) => claimOnce(`${presetId}\u0000${turnId}`));
  table.register("signal_claim", async ({ id }) => claimOnce(`signal\u0000${id}`));

  // rate_relation's change, decided here where the value is stored: one SQLite transaction per change
  // (docs/relations.md). The window has checked the arguments and the once-per-turn rule already.
  table.register(RELATION_RATE_COMMAND, async (args) => rateRelation(store, args));
  table.register("relation_set_by_user", async ({ presetId, target, value }) => {
    setRelationByUser(store, presetId, target, value);
    return null;
  });

  // The preset list, changed where it is stored: each change reads and writes yui.presets, yui.presets.open
  // and yui.presets.active in one transaction, so two windows editing characters at once never lose an edit.
  table.register("preset_save", async ({ preset }) =>
    store.transaction(() => savePreset(store, preset, "user")),
  );
  const presetChange = (
    name: "preset_remove" | "preset_activate" | "pet_open" | "pet_close",
    fn: (id: string) => unknown,
  ) =>
    table.register(name, async ({ presetId }) => {
      store.transaction(() => fn(presetId));
      return null;
    });
  presetChange("preset_remove", (id) => removePreset(store, id, "user"));
  presetChange("preset_activate", (id) => setActivePreset(store, id, "user"));
  presetChange("pet_open", (id) => openPet(store, id, "user"));
  presetChange("pet_close", (id) => closePet(store, id, "user"));

  // A finished turn's lines, appended where the conversation is stored (one transaction): two windows of one
  // character ending turns at once both keep their lines, where reading the mirror and writing it back lost one.
  table.register("history_append", async ({ presetId, entries }) => {
    store.update<HistoryEntry[]>(
      historyKey(presetId),
      (list) => [...list, ...entries].slice(-HISTORY_MAX),
      "app",
    );
    return null;
  });

  // The desktop app's host only (the browser build declares no browser tool); the switch read at each call.
  if (deps.browser === true) await registerBrowserCommands(table.register, () => switchStates(store).browser);
}
