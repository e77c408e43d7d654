/**
 * The voice's controls in the windows (docs/voice.md#settings): the Voice card of a character in Settings,
 * the global mute and each character's voice switch in Quick controls, and the reads the panel makes.
 */
import type { KeyValue } from "../app/presets/presets.ts";
import {
  DEFAULT_VOICE_SETTINGS,
  GlobalVoiceSchema,
  SPEECH_FORMATS,
  VOICE_ENGINES,
  VOICE_KEYS,
  VOICE_PREFIX,
  type VoiceSettings,
  VoiceSettingsSchema,
} from "../protocol/voice.ts";
import { ELEVENLABS_V3_TAGS, ENGINE_DEFAULTS } from "../voice/engines.ts";
import type { ViewContext } from "./context.ts";
import { h, replace } from "./dom.ts";

/** A character's voice settings (the default while unset or unreadable). */
export function voiceSettingsOf(kv: KeyValue, presetId: string): VoiceSettings {
  const r = VoiceSettingsSchema.safeParse(kv.get(VOICE_KEYS.preset(presetId)));
  return r.success ? r.data : DEFAULT_VOICE_SETTINGS;
}

/** Whether quick controls muted every voice. */
export function voiceMuted(kv: KeyValue): boolean {
  const r = GlobalVoiceSchema.safeParse(kv.get(VOICE_KEYS.global));
  return r.success ? r.data.muted : false;
}

/** Whether a character speaks now: its voice on and nothing muted. */
export const speaks = (kv: KeyValue, presetId: string) =>
  voiceSettingsOf(kv, presetId).enabled && !voiceMuted(kv);

/** True for store keys that change whether or how a character speaks. */
export const isVoiceKey = (key: string) => key === VOICE_KEYS.global || /^yui\.[^.]+\.voice$/.test(key);

/** The global mute as a labelled switch. */
export function muteSwitch(kv: KeyValue): HTMLElement {
  return h(
    "label",
    { class: "switch-row switch-mute" },
    h(
      "span",
      { class: "switch-text" },
      h("strong", {}, "Mute voices"),
      h("small", {}, "Silences every character; text and cues go on."),
    ),
    h("input", {
      type: "checkbox",
      role: "switch",
      checked: voiceMuted(kv),
      "data-testid": "voice-mute",
      onchange: (e: Event) => kv.set(VOICE_KEYS.global, { muted: (e.target as HTMLInputElement).checked }),
    }),
    h("span", { class: "toggle", "aria-hidden": "true" }),
  );
}

/** The voice key's notes, written once. */
export const VOICE_KEY_NOTES = {
  stored: "A key is stored (never shown).",
  none: "No key stored.",
  dropped: "The engine or its address changed, so the stored key was dropped: enter it again.",
} as const;

/** One character's voice on/off. */
export function voiceToggle(kv: KeyValue, presetId: string, name: string): HTMLElement {
  return h(
    "label",
    { class: "voice-toggle", title: `${name} speaks her replies` },
    h("input", {
      type: "checkbox",
      checked: voiceSettingsOf(kv, presetId).enabled,
      "data-testid": `voice-${presetId}`,
      "aria-label": `Voice of ${name}`,
      onchange: (e: Event) =>
        kv.set(VOICE_KEYS.preset(presetId), {
          ...voiceSettingsOf(kv, presetId),
          enabled: (e.target as HTMLInputElement).checked,
        }),
    }),
    " voice",
  );
}

/** The enum-mode engine's tag table, written into the vocabulary's voice in one click; the verdict says how it went. */
function useTagsButton(bridge: ViewContext["bridge"], verdict: HTMLElement): HTMLElement {
  return h(
    "button",
    {
      class: "secondary",
      type: "button",
      "data-testid": "voice-use-tags",
      onclick: async () => {
        try {
          const { vocabulary } = await bridge.invoke("vocabulary_get", {});
          await bridge.invoke("vocabulary_set", {
            vocabulary: {
              ...vocabulary,
              voice: { engine: "elevenlabs", mode: "enum", tags: ELEVENLABS_V3_TAGS },
            },
          });
          verdict.className = "verdict good";
          verdict.textContent = `The vocabulary's voice is now ElevenLabs v3 with its ${ELEVENLABS_V3_TAGS.length} audio tags.`;
        } catch (e) {
          verdict.className = "verdict bad";
          verdict.textContent = (e as Error).message;
        }
      },
    },
    "Use the ElevenLabs v3 tags in the vocabulary",
  );
}

/** Test voice: speaks a greeting through the host's voice route and plays it; the verdict says how it went. */
async function speakSample(presetId: string, name: string, verdict: HTMLElement): Promise<void> {
  verdict.className = "verdict";
  verdict.textContent = "Speaking…";
  try {
    const res = await fetch(`${VOICE_PREFIX}${encodeURIComponent(presetId)}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ text: `Hello, I am ${name}.` }),
    });
    if (!res.ok) {
      const j = (await res.json().catch(() => ({}))) as { error?: { message?: string } };
      throw new Error(j.error?.message ?? `HTTP ${res.status}`);
    }
    const audio = new Audio(URL.createObjectURL(await res.blob()));
    await audio.play().catch(() => {});
    verdict.className = "verdict good";
    verdict.textContent = `Spoken with ${res.headers.get("x-yui-voice-engine") ?? "the engine"}.`;
  } catch (e) {
    verdict.className = "verdict bad";
    verdict.textContent = (e as Error).message;
  }
}

/** Renders the Voice card of a character into `card`. */
export function renderVoiceCard(card: HTMLElement, ctx: ViewContext, presetId: string, name: string): void {
  const { kv, bridge } = ctx;
  const v = voiceSettingsOf(kv, presetId);
  const field = (label: string, control: HTMLElement, note?: string) =>
    h(
      "label",
      { class: "field" },
      h("span", { class: "label" }, label),
      control,
      note ? h("small", {}, note) : null,
    );
  const enabled = h("input", { type: "checkbox", checked: v.enabled, "data-testid": "voice-enabled" });
  const engine = h(
    "select",
    { "data-testid": "voice-engine" },
    h("option", { value: "", selected: !v.engine }, "Default (the vocabulary's engine, else local)"),
    ...VOICE_ENGINES.map((e) =>
      h("option", { value: e, selected: e === v.engine }, ENGINE_DEFAULTS[e].label),
    ),
  );
  const base = h("input", {
    type: "url",
    value: v.base_url ?? "",
    placeholder: "",
    "data-testid": "voice-base-url",
  });
  const model = h("input", { value: v.model ?? "", "data-testid": "voice-model" });
  const voice = h("input", { value: v.voice ?? "", "data-testid": "voice-voice" });
  const format = h(
    "select",
    { "data-testid": "voice-format" },
    ...SPEECH_FORMATS.map((f) => h("option", { value: f, selected: f === (v.format ?? "wav") }, f)),
  );
  const key = h("input", {
    type: "password",
    autocomplete: "off",
    placeholder: "write-only",
    "data-testid": "voice-key",
  });
  const keyNote = h("small", {});
  const verdict = h("div", { class: "verdict", "data-testid": "voice-verdict" });
  const hints = () => {
    const d = ENGINE_DEFAULTS[(engine.value || "local") as keyof typeof ENGINE_DEFAULTS];
    base.placeholder = d.base_url ?? "(not used)";
    model.placeholder = d.model ?? "(not used)";
    voice.placeholder =
      d.voice ?? (engine.value === "elevenlabs" ? "a voice id (required)" : "espeak-ng voice, e.g. en-us+f3");
  };
  const useTags = useTagsButton(bridge, verdict);
  const showTags = () => {
    useTags.hidden = engine.value !== "elevenlabs";
  };
  engine.addEventListener("change", hints);
  engine.addEventListener("change", showTags);
  hints();
  showTags();
  const refreshKey = () =>
    bridge
      .invoke("voice_key_status", { presetId })
      .then((s) => {
        keyNote.textContent = s.stored ? VOICE_KEY_NOTES.stored : VOICE_KEY_NOTES.none;
      })
      .catch(() => {});
  refreshKey();
  const save = async (): Promise<boolean> => {
    const opt = (s: string) => (s.trim() ? s.trim() : undefined);
    const next = {
      enabled: enabled.checked,
      engine: opt(engine.value),
      base_url: opt(base.value)?.replace(/\/+$/, ""),
      model: opt(model.value),
      voice: opt(voice.value),
      format: format.value === "wav" ? undefined : format.value,
    };
    const parsed = VoiceSettingsSchema.safeParse(JSON.parse(JSON.stringify(next)));
    if (!parsed.success) {
      const i = parsed.error.issues[0]!;
      verdict.className = "verdict bad";
      verdict.textContent = `Not saved: ${i.path.join(".")}: ${i.message}`;
      return false;
    }
    // The key is kept for the engine's address it was saved for: another engine or base drops it on the host.
    const moved = v.engine !== parsed.data.engine || v.base_url !== parsed.data.base_url;
    const had = moved && !key.value && keyNote.textContent === VOICE_KEY_NOTES.stored;
    kv.set(VOICE_KEYS.preset(presetId), parsed.data);
    if (key.value) {
      try {
        await bridge.invoke("voice_key_set", { presetId, key: key.value });
      } catch (e) {
        verdict.className = "verdict bad";
        verdict.textContent = `Not saved: ${(e as Error).message}`;
        return false;
      }
      key.value = "";
      refreshKey();
    } else if (had) keyNote.textContent = VOICE_KEY_NOTES.dropped;
    await (kv as { settled?: () => Promise<void> }).settled?.();
    verdict.className = "verdict good";
    verdict.textContent = "Saved.";
    return true;
  };
  const test = async () => {
    if (!(await save())) return;
    await speakSample(presetId, name, verdict);
  };
  replace(
    card,
    h("h2", {}, `Voice of ${name}`),
    h("label", { class: "field inline" }, enabled, h("span", {}, " Speaks her replies")),
    field("Engine", engine, "Local needs no account: espeak-ng on Linux, say on macOS."),
    field(
      "Base URL",
      base,
      "OpenAI-compatible: …/v1 (OpenAI, Kokoro-FastAPI, openedai-speech, LocalAI, AllTalk).",
    ),
    field("Model", model),
    field("Voice", voice),
    field("Format", format, "OpenAI-compatible response_format."),
    h("label", { class: "field" }, h("span", { class: "label" }, "API key"), key, keyNote),
    h(
      "div",
      { class: "row actions" },
      h("button", { "data-testid": "save-voice", onclick: () => void save() }, "Save"),
      h(
        "button",
        { class: "secondary", "data-testid": "test-voice", onclick: () => void test() },
        "Test voice",
      ),
      useTags,
    ),
    verdict,
  );
}
