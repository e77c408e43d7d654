/**
 * Settings → Backend of the selected character: transport, base URL, model from the backend's list, API key
 * (write-only), push URL, persona, avatar, the deprecated broker URL; Save, and Test connection with its verdict.
 */
import { type Preset, PresetSchema, TRANSPORTS } from "../../app/presets/preset.ts";
import { activePresetId, getPreset } from "../../app/presets/presets.ts";
import { backendKeyOrigins } from "../../protocol/keys.ts";
import type { ViewContext } from "../context.ts";
import { h, replace } from "../dom.ts";
import { avatarRow } from "./avatar.ts";
import { field, SETTINGS_COPY, type Section, type SettingsScreen, sectionCard } from "./shared.ts";

const TRANSPORT_NAMES = {
  chat: "Chat Completions",
  responses: "Responses",
  push: "Push (WebSocket)",
} as const;

/** The form's controls, filled from the preset `p`. */
function backendForm(p: Preset) {
  const b = p.backend;
  const model = h("input", {
    value: b.model ?? "",
    list: `models-${p.id}`,
    placeholder: "model name",
    "data-testid": "model",
    spellcheck: false,
  });
  return {
    transport: h(
      "select",
      { "data-testid": "transport" },
      ...TRANSPORTS.map((t) => h("option", { value: t, selected: t === b.transport }, TRANSPORT_NAMES[t])),
    ),
    base: h("input", {
      value: b.base_url ?? "",
      placeholder: "http://127.0.0.1:11434/v1",
      "data-testid": "base-url",
      spellcheck: false,
    }),
    models: h("datalist", { id: `models-${p.id}` }),
    model,
    modelSelect: h("select", {
      "data-testid": "model-select",
      hidden: true,
      onchange: (e: Event) => (model.value = (e.target as HTMLSelectElement).value),
    }),
    key: h("input", { type: "password", placeholder: "sk-…", autocomplete: "off", "data-testid": "api-key" }),
    keyNote: h("small", { "data-testid": "key-status" }, "…"),
    push: h("input", {
      value: b.push_url ?? "",
      placeholder: "ws://127.0.0.1:…",
      "data-testid": "push-url",
      spellcheck: false,
    }),
    broker: h("input", {
      value: b.broker_base_url ?? "",
      placeholder: "(unset)",
      spellcheck: false,
      "data-testid": "broker-url",
    }),
    persona: h(
      "textarea",
      { rows: 3, "data-testid": "persona", placeholder: "Who is this character? How do they speak?" },
      p.persona,
    ),
    verdict: h("p", { class: "verdict", "data-testid": "verdict", role: "status" }),
  };
}
type BackendForm = ReturnType<typeof backendForm>;

// The presets whose key this window saw dropped by an address change: their note says so until a key is set.
const dropped = new Set<string>();

/** Says which API key is in force for the preset: stored, the host's environment, or none (or dropped). */
function refreshKeyNote(ctx: ViewContext, presetId: string, note: HTMLElement): void {
  ctx.bridge
    .invoke("api_key_status", { presetId })
    .then((s) => {
      if (s.stored) dropped.delete(presetId);
      note.textContent = s.stored
        ? SETTINGS_COPY.keyStored
        : dropped.has(presetId)
          ? SETTINGS_COPY.keyDropped
          : s.inForce
            ? SETTINGS_COPY.keyEnv
            : SETTINGS_COPY.keyNone;
    })
    .catch(() => {});
}

/** Saves the form into `p` (and a typed key host-side); false, with the verdict saying why, when refused. */
async function saveBackend(s: SettingsScreen, p: Preset, f: BackendForm): Promise<boolean> {
  const opt = (v: string) => (v.trim() ? v.trim() : undefined);
  const parsed = PresetSchema.safeParse({
    ...p,
    persona: f.persona.value,
    backend: {
      transport: f.transport.value,
      base_url: opt(f.base.value)?.replace(/\/+$/, ""),
      model: opt(f.model.value),
      push_url: opt(f.push.value),
      broker_base_url: opt(f.broker.value),
    },
  });
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    f.verdict.className = "verdict bad";
    f.verdict.textContent = `Not saved: ${i.path.join(".")}: ${i.message}`;
    return false;
  }
  // A key is kept for the base and push URL it was saved for: a new address drops it on the host (docs/app.md).
  const moved = backendKeyOrigins(p.backend).join() !== backendKeyOrigins(parsed.data.backend).join();
  const before = moved
    ? await s.ctx.bridge.invoke("api_key_status", { presetId: p.id }).catch(() => null)
    : null;
  if (!(await s.change("preset_save", { preset: parsed.data }))) return false;
  if (f.key.value) {
    await s.ctx.bridge.invoke("api_key_set", { presetId: p.id, key: f.key.value });
    f.key.value = "";
    refreshKeyNote(s.ctx, p.id, f.keyNote);
  } else if (before?.stored) {
    dropped.add(p.id);
    refreshKeyNote(s.ctx, p.id, f.keyNote);
  }
  await s.ctx.kv.settled();
  return true;
}

/** Saves, then asks the host to test the backend: the verdict, and the backend's models to pick from. */
async function testConnection(s: SettingsScreen, p: Preset, f: BackendForm): Promise<void> {
  if (!(await saveBackend(s, p, f))) return;
  f.verdict.className = "verdict";
  f.verdict.textContent = "Testing…";
  const r = await s.ctx.bridge
    .invoke("backend_test", { presetId: p.id })
    .catch((e: Error) => ({ ok: false, verdict: e.message, models: [] as string[] }));
  f.verdict.className = `verdict ${r.ok ? "good" : "bad"}`;
  f.verdict.textContent = r.verdict;
  replace(f.models, ...r.models.map((m) => h("option", { value: m })));
  if (r.models.length) {
    replace(
      f.modelSelect,
      h("option", { value: "" }, "Pick a model…"),
      ...r.models.map((m) => h("option", { value: m, selected: m === f.model.value }, m)),
    );
    f.modelSelect.hidden = false;
  }
}

/** Mounts the Backend section; it shows the selected character, or main's when that one is gone. */
export function mountBackend(s: SettingsScreen): Section {
  const card = sectionCard("backend");
  const render = () => {
    const { kv } = s.ctx;
    const p = getPreset(kv, s.selected) ?? getPreset(kv, activePresetId(kv))!;
    s.selected = p.id;
    const f = backendForm(p);
    refreshKeyNote(s.ctx, p.id, f.keyNote);
    const saved = async () => {
      if (await saveBackend(s, p, f)) {
        f.verdict.className = "verdict good";
        f.verdict.textContent = SETTINGS_COPY.saved;
      }
    };
    replace(
      card,
      h("h2", {}, `Backend of ${p.name}`),
      field("Transport", f.transport),
      field("Base URL", f.base, "OpenAI-compatible, ending in /v1 (Ollama, vLLM, OpenAI, …)"),
      field(
        "Model",
        h("div", { class: "row" }, f.model, f.modelSelect, f.models),
        "Pick from the backend's list after a connection test, or type a name.",
      ),
      field("API key", f.key, f.keyNote),
      field("Push URL", f.push, "Only for the push transport."),
      field("Persona", f.persona),
      field("Avatar", avatarRow(p), "A VRM 0.x or 1.0 file; drop it here or choose it."),
      h(
        "details",
        { class: "deprecated" },
        h("summary", {}, "broker_base_url (deprecated)"),
        field("Expression Broker URL", f.broker, SETTINGS_COPY.deprecatedBroker),
      ),
      h(
        "div",
        { class: "row actions" },
        h("button", { "data-testid": "save-backend", onclick: saved }, "Save"),
        h(
          "button",
          { class: "secondary", "data-testid": "test-connection", onclick: () => testConnection(s, p, f) },
          "Test connection",
        ),
      ),
      f.verdict,
    );
  };
  return { card, render };
}
