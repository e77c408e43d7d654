/**
 * The first run in her window (docs/desktop.md "The first run"): while the host finds that her backend does not
 * answer (`yui.<presetId>.backend_check`, host/backend-check.ts), she says so herself in her bubble with the
 * commands that fix it and a button to Settings, and a sign stays on her until it answers. Without a tray she
 * says how to reach her menu.
 */
import { getPreset } from "../app/presets/presets.ts";
import {
  type BackendStatus,
  BackendStatusSchema,
  backendStatusKey,
  DEFAULT_OLLAMA_MODEL,
} from "../protocol/backend-status.ts";
import type { BubbleControl, Saying } from "./desktop-bubble.ts";
import { h } from "./dom.ts";
import type { StoreMirror } from "./store-mirror.ts";

/** Her words, written once (the tests assert them from here). */
export const FIRST_RUN = {
  ollama: (base: string, reason: string) =>
    `I can't reach my model at ${base} (${reason}). Start Ollama and get a model that can use tools:`,
  other: (base: string, reason: string) =>
    `I can't reach my model at ${base} (${reason}). Is it running? You can change it in Settings.`,
  noUrl: "I have no model to talk with yet. Give me one in Settings.",
  noTray: "There is no tray icon here: right-click on me for my menu.",
  sign: "No backend answers: click for what to do",
} as const;

/** A local Ollama's base URL (its port, or its name). */
const isOllama = (base: string) => /:11434(\/|$)|ollama/i.test(base);

/** What she says while her backend does not answer; null when it does. */
export function firstRunSaying(status: BackendStatus, model: string | undefined): Saying | null {
  if (status.ok) return null;
  const actions: Saying["actions"] = [
    { action: "settings", label: "Open Settings" },
    { action: "dismiss", label: "Later" },
  ];
  if (!status.base_url) return { text: FIRST_RUN.noUrl, actions };
  if (isOllama(status.base_url))
    return {
      text: FIRST_RUN.ollama(status.base_url, status.reason),
      commands: ["ollama serve", `ollama pull ${model || DEFAULT_OLLAMA_MODEL}`],
      actions,
    };
  return { text: FIRST_RUN.other(status.base_url, status.reason), actions };
}

/**
 * Follows her backend's check: her first-run words in the bubble and the sign on her (`sign`, shown while it
 * does not answer; a click on it says the words again). Returns what stops following.
 */
export function followBackend(
  kv: StoreMirror,
  presetId: string,
  bubble: BubbleControl,
  sign: HTMLElement,
  changed: () => void,
): () => void {
  let said = "";
  const update = (again = false) => {
    const parsed = BackendStatusSchema.safeParse(kv.get(backendStatusKey(presetId)));
    const status = parsed.success ? parsed.data : { ok: true, base_url: "", reason: "" };
    const saying = firstRunSaying(status, getPreset(kv, presetId)?.backend.model);
    sign.hidden = !saying;
    const key = JSON.stringify(saying);
    // Said when it changes (or the sign is clicked), not again at every check.
    if (again || key !== said) bubble.firstRun(saying);
    said = key;
    changed();
  };
  sign.addEventListener("click", (e) => {
    e.stopPropagation();
    update(true);
  });
  update();
  return kv.watch(backendStatusKey(presetId), () => update());
}

/** The sign on her while her backend does not answer. */
export function backendSign(): HTMLElement {
  return h(
    "button",
    {
      type: "button",
      class: "backend-sign",
      "data-testid": "backend-sign",
      title: FIRST_RUN.sign,
      hidden: true,
    },
    "!",
  );
}
