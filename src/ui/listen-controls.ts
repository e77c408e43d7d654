/**
 * Listening's controls in the windows (docs/voice.md#listening): the hands-free switch (Quick controls and
 * Settings), the Listening card of Settings (engine, connection, key, sensitivity, silence, shortest utterance,
 * language), and the reads the panel makes.
 */
import type { KeyValue } from "../app/presets/presets.ts";
import {
  DEFAULT_LISTEN_SETTINGS,
  LISTEN_ENGINES,
  LISTEN_KEYS,
  LISTEN_LIMITS,
  type ListenSettings,
  ListenSettingsSchema,
} from "../protocol/listen.ts";
import type { ViewContext } from "./context.ts";
import { h, replace } from "./dom.ts";

/** The device's listening settings (the default while unset or unreadable). */
export function listenSettingsOf(kv: KeyValue): ListenSettings {
  const r = ListenSettingsSchema.safeParse(kv.get(LISTEN_KEYS.settings));
  return r.success ? r.data : DEFAULT_LISTEN_SETTINGS;
}

/** True for the store key of listening. */
export const isListenKey = (key: string) => key === LISTEN_KEYS.settings;

/** Turns hands-free on or off, keeping the other settings. */
export function setHandsFree(kv: KeyValue, on: boolean): void {
  kv.set(LISTEN_KEYS.settings, { ...listenSettingsOf(kv), hands_free: on });
}

/** The hands-free switch as a labelled row. */
export function handsFreeSwitch(kv: KeyValue): HTMLElement {
  return h(
    "label",
    { class: "switch-row switch-hands-free" },
    h(
      "span",
      { class: "switch-text" },
      h("strong", {}, "Hands-free"),
      h("small", {}, "The microphone stays open; each thing you say is sent. Off until you turn it on."),
    ),
    h("input", {
      type: "checkbox",
      role: "switch",
      checked: listenSettingsOf(kv).hands_free,
      "data-testid": "hands-free",
      onchange: (e: Event) => setHandsFree(kv, (e.target as HTMLInputElement).checked),
    }),
    h("span", { class: "toggle", "aria-hidden": "true" }),
  );
}

const ENGINE_LABELS: Record<(typeof LISTEN_ENGINES)[number], string> = {
  local: "Local (pocketsphinx, English, no account)",
  openai: "OpenAI-compatible (/audio/transcriptions: OpenAI, Groq, local Whisper servers)",
};

/** Renders the Listening card into `card`. */
export function renderListenCard(card: HTMLElement, ctx: ViewContext): void {
  const { kv, bridge } = ctx;
  const s = listenSettingsOf(kv);
  const field = (label: string, control: HTMLElement, note?: string) =>
    h(
      "label",
      { class: "field" },
      h("span", { class: "label" }, label),
      control,
      note ? h("small", {}, note) : null,
    );
  const engine = h(
    "select",
    { "data-testid": "listen-engine" },
    ...LISTEN_ENGINES.map((e) =>
      h("option", { value: e, selected: e === (s.engine ?? "local") }, ENGINE_LABELS[e]),
    ),
  );
  const base = h("input", {
    type: "url",
    value: s.base_url ?? "",
    placeholder: "https://api.openai.com/v1",
    "data-testid": "listen-base-url",
  });
  const model = h("input", { value: s.model ?? "", placeholder: "whisper-1", "data-testid": "listen-model" });
  const language = h("input", {
    value: s.language ?? "",
    placeholder: "en",
    "data-testid": "listen-language",
  });
  const range = (key: keyof typeof LISTEN_LIMITS, value: number | undefined, step: number) =>
    h("input", {
      type: "range",
      min: LISTEN_LIMITS[key].min,
      max: LISTEN_LIMITS[key].max,
      step,
      value: value ?? LISTEN_LIMITS[key].default,
      "data-testid": `listen-${key.replaceAll("_", "-")}`,
    });
  const sensitivity = range("sensitivity", s.sensitivity, 0.05);
  const silence = range("end_silence_ms", s.end_silence_ms, 50);
  const shortest = range("min_utterance_ms", s.min_utterance_ms, 50);
  const key = h("input", {
    type: "password",
    autocomplete: "off",
    placeholder: "write-only",
    "data-testid": "listen-key",
  });
  const keyNote = h("small", {});
  const verdict = h("div", { class: "verdict", "data-testid": "listen-verdict" });
  const refreshKey = () =>
    bridge
      .invoke("listen_key_status", {})
      .then((r) => {
        keyNote.textContent = r.stored ? "A key is stored (never shown)." : "No key stored.";
      })
      .catch(() => {});
  refreshKey();
  const save = async () => {
    const opt = (v: string) => (v.trim() ? v.trim() : undefined);
    const num = (el: HTMLInputElement, k: keyof typeof LISTEN_LIMITS) =>
      Number(el.value) === LISTEN_LIMITS[k].default ? undefined : Number(el.value);
    const next = {
      hands_free: listenSettingsOf(kv).hands_free,
      engine: engine.value === "local" ? undefined : engine.value,
      base_url: opt(base.value)?.replace(/\/+$/, ""),
      model: opt(model.value),
      language: opt(language.value),
      sensitivity: num(sensitivity, "sensitivity"),
      end_silence_ms: num(silence, "end_silence_ms"),
      min_utterance_ms: num(shortest, "min_utterance_ms"),
    };
    const parsed = ListenSettingsSchema.safeParse(JSON.parse(JSON.stringify(next)));
    if (!parsed.success) {
      const i = parsed.error.issues[0]!;
      verdict.className = "verdict bad";
      verdict.textContent = `Not saved: ${i.path.join(".")}: ${i.message}`;
      return;
    }
    kv.set(LISTEN_KEYS.settings, parsed.data);
    if (key.value) {
      await bridge.invoke("listen_key_set", { key: key.value });
      key.value = "";
      refreshKey();
    }
    verdict.className = "verdict good";
    verdict.textContent = "Saved.";
  };
  replace(
    card,
    h("h2", {}, "Listening"),
    handsFreeSwitch(kv),
    h(
      "p",
      { class: "note" },
      "Push-to-talk: hold the microphone button (or the space bar in a chat window) and speak; letting go sends. ",
      "Slide off the button before letting go to keep the words in the input instead.",
    ),
    field("Engine", engine),
    field("Base URL", base, "OpenAI-compatible: …/v1."),
    field("Model", model),
    field("Language", language, "A code such as en or ja; the local engine knows English only."),
    field("Sensitivity", sensitivity, "Higher hears quieter speech; lower ignores more noise."),
    field("Silence that ends what you say (ms)", silence),
    field("Shortest utterance kept (ms)", shortest),
    h("label", { class: "field" }, h("span", { class: "label" }, "API key"), key, keyNote),
    h(
      "div",
      { class: "row actions" },
      h("button", { "data-testid": "save-listen", onclick: () => void save() }, "Save"),
    ),
    verdict,
  );
}
