/**
 * Settings: the characters (create, rename, make main, open as a panel), each one's backend (transport,
 * base URL, model from the backend's list, API key, push URL, the deprecated broker URL) with a connection
 * test, the switches, the relations (value, band, reasons, the user's slider) and the vocabulary.
 */
import { type Preset, PresetSchema, TRANSPORTS } from "../app/presets/preset.ts";
import { activePresetId, getPreset, listPresets, openPetIds, openPresets } from "../app/presets/presets.ts";
import { relationRows } from "../app/relations/access.ts";
import { RELATION_MAX, RELATION_MIN } from "../app/relations/relations.ts";
import { offeredMotions, type Vocabulary } from "../app/vocabulary/vocabulary.ts";
import { attachModelDrop, type ChosenModel, pickModelFile } from "../avatar/model-file.ts";
import { renderVoiceCard } from "../voice/ui.ts";
import type { ViewContext } from "./context.ts";
import { h, replace } from "./dom.ts";
import { switchRow } from "./quick-view.ts";
import { SWITCH_KEYS, type SwitchId } from "./switches.ts";

/** Copy the settings show, written once. */
export const SETTINGS_COPY = {
  deprecatedBroker: "Deprecated: removed in v0.6.0. The client-declared tool replaces it.",
  keyStored: "A key is stored in the host (it is never shown again).",
  keyEnv: "Using OPENAI_API_KEY from the host's environment.",
  keyNone: "No key: fine for a local backend such as Ollama.",
  saved: "Saved.",
} as const;

/** A preset id from a name: lower-case slug, unique among `taken`. */
export function slugFor(name: string, taken: Set<string>): string {
  const base =
    name
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 48) || "character";
  let id = /^[a-z0-9]/.test(base) ? base : `c-${base}`;
  for (
    let n = 2;
    taken.has(id) || ["user", "presets", "browser", "relations", "screen_capture", "rate_limit"].includes(id);
    n++
  ) {
    id = `${base}-${n}`;
  }
  return id;
}

/** Mounts the settings view. */
export function mountSettings(root: HTMLElement, ctx: ViewContext): void {
  const { kv, bridge } = ctx;
  // Preset changes are made by the host in one transaction (docs/store.md), never read from this window's
  // mirror and written back: another window editing characters at the same moment keeps its edit.
  const change = (command: string, args: unknown): Promise<boolean> =>
    bridge.invoke(command, args).then(
      () => true,
      (e: Error) => {
        ctx.toast(`Not saved: ${e.message}`);
        return false;
      },
    );
  let selected = activePresetId(kv);
  const characters = h("section", { class: "card", id: "characters" });
  const backend = h("section", { class: "card", id: "backend" });
  const switches = h("section", { class: "card", id: "switches" });
  const relations = h("section", { class: "card", id: "relations" });
  const vocab = h("section", { class: "card", id: "vocabulary" });
  const voiceCard = h("section", { class: "card", id: "voice" });
  root.append(
    h("h1", {}, "Settings"),
    h(
      "div",
      { class: "settings-grid" },
      h("div", { class: "col" }, characters, backend, voiceCard),
      h("div", { class: "col" }, switches, relations, vocab),
    ),
  );

  // ---- characters ----
  function renderCharacters(): void {
    const main = activePresetId(kv);
    const open = new Set(openPetIds(kv));
    const nameInput = h("input", {
      placeholder: "New character's name",
      "aria-label": "New character's name",
      "data-testid": "new-name",
      maxlength: 64,
    });
    replace(
      characters,
      h("h2", {}, "Characters"),
      h(
        "ul",
        { class: "preset-list" },
        ...listPresets(kv).map((p) =>
          h(
            "li",
            { class: p.id === selected ? "selected" : "", "data-testid": `preset-${p.id}` },
            h("span", { class: "avatar-dot" }, p.name.slice(0, 1)),
            h("input", {
              class: "rename",
              value: p.name,
              "aria-label": `Name of ${p.name}`,
              "data-testid": `rename-${p.id}`,
              maxlength: 64,
              onchange: (e: Event) => {
                const name = (e.target as HTMLInputElement).value.trim();
                if (name) void change("preset_save", { preset: { ...p, name } });
              },
            }),
            p.id === main
              ? h("span", { class: "tag" }, "main")
              : h(
                  "button",
                  {
                    class: "small",
                    "data-testid": `make-main-${p.id}`,
                    onclick: () => void change("preset_activate", { presetId: p.id }),
                  },
                  "Make main",
                ),
            p.id === main
              ? null
              : h(
                  "button",
                  {
                    class: "small",
                    "data-testid": `open-${p.id}`,
                    onclick: () => void change(open.has(p.id) ? "pet_close" : "pet_open", { presetId: p.id }),
                  },
                  open.has(p.id) ? "Close panel" : "Open as panel",
                ),
            h(
              "button",
              {
                class: "small ghost",
                onclick: () => {
                  selected = p.id;
                  renderAll();
                },
              },
              "Edit",
            ),
            listPresets(kv).length > 1
              ? h(
                  "button",
                  {
                    class: "small danger",
                    title: `Delete ${p.name}`,
                    onclick: () => {
                      if (confirm(`Delete ${p.name}? Their conversation stays in the store.`))
                        void change("preset_remove", { presetId: p.id });
                    },
                  },
                  "Delete",
                )
              : null,
          ),
        ),
      ),
      h(
        "form",
        {
          class: "row",
          onsubmit: (e: Event) => {
            e.preventDefault();
            const name = nameInput.value.trim();
            if (!name) return;
            const base = getPreset(kv, activePresetId(kv));
            const id = slugFor(name, new Set(listPresets(kv).map((p) => p.id)));
            const preset = PresetSchema.parse({ id, name, backend: base?.backend ?? { transport: "chat" } });
            void change("preset_save", { preset }).then((saved) => {
              if (!saved) return;
              selected = id;
              renderAll();
            });
          },
        },
        nameInput,
        h("button", { type: "submit", "data-testid": "create" }, "Create"),
      ),
    );
  }

  // ---- backend ----
  function renderBackend(): void {
    const p = getPreset(kv, selected) ?? getPreset(kv, activePresetId(kv))!;
    selected = p.id;
    const b = p.backend;
    const field = (label: string, control: HTMLElement, note?: HTMLElement | string) =>
      h(
        "label",
        { class: "field" },
        h("span", { class: "label" }, label),
        control,
        note ? h("small", {}, note) : null,
      );
    const transport = h(
      "select",
      { "data-testid": "transport" },
      ...TRANSPORTS.map((t) =>
        h(
          "option",
          { value: t, selected: t === b.transport },
          t === "chat" ? "Chat Completions" : t === "responses" ? "Responses" : "Push (WebSocket)",
        ),
      ),
    );
    const base = h("input", {
      value: b.base_url ?? "",
      placeholder: "http://127.0.0.1:11434/v1",
      "data-testid": "base-url",
      spellcheck: false,
    });
    const models = h("datalist", { id: `models-${p.id}` });
    const model = h("input", {
      value: b.model ?? "",
      list: `models-${p.id}`,
      placeholder: "model name",
      "data-testid": "model",
      spellcheck: false,
    });
    const modelSelect = h("select", {
      "data-testid": "model-select",
      hidden: true,
      onchange: (e: Event) => (model.value = (e.target as HTMLSelectElement).value),
    });
    const key = h("input", {
      type: "password",
      placeholder: "sk-…",
      autocomplete: "off",
      "data-testid": "api-key",
    });
    const keyNote = h("small", { "data-testid": "key-status" }, "…");
    const push = h("input", {
      value: b.push_url ?? "",
      placeholder: "ws://127.0.0.1:…",
      "data-testid": "push-url",
      spellcheck: false,
    });
    const broker = h("input", {
      value: b.broker_base_url ?? "",
      placeholder: "(unset)",
      spellcheck: false,
      "data-testid": "broker-url",
    });
    const persona = h(
      "textarea",
      { rows: 3, "data-testid": "persona", placeholder: "Who is this character? How do they speak?" },
      p.persona,
    );
    const verdict = h("p", { class: "verdict", "data-testid": "verdict", role: "status" });
    // The character's model: the user's own .vrm, picked or dropped, stored by the host for this preset.
    const avatarNote = h(
      "small",
      { "data-testid": "avatar-status", role: "status" },
      p.avatar ? `Your model: ${p.avatar.split(/[\\/]/).pop()}` : "The default character.",
    );
    const useModel = async (m: ChosenModel) => {
      if (!m.check.ok) {
        avatarNote.textContent = `${m.fileName}: ${m.check.error} The current model stays.`;
        return;
      }
      avatarNote.textContent = `Saving ${m.fileName}…`;
      const res = await fetch(`/avatar/${encodeURIComponent(p.id)}.vrm`, {
        method: "PUT",
        body: new Blob([m.bytes as Uint8Array<ArrayBuffer>]),
      });
      const body = (await res.json().catch(() => ({}))) as { error?: string };
      avatarNote.textContent = res.ok
        ? `Your model: ${m.fileName}. The chat shows it from its next load.`
        : `${m.fileName}: ${body.error ?? `not saved (HTTP ${res.status})`} The current model stays.`;
    };
    const avatarRow = h(
      "div",
      { class: "row drop", "data-testid": "avatar-drop" },
      h(
        "button",
        {
          type: "button",
          "data-testid": "avatar-pick",
          onclick: () => void pickModelFile().then((m) => m && useModel(m)),
        },
        "Choose a .vrm…",
      ),
      avatarNote,
    );
    attachModelDrop(avatarRow, (m) => void useModel(m));
    const refreshKey = () =>
      bridge
        .invoke<{ stored: boolean; inForce: boolean }>("api_key_status", { presetId: p.id })
        .then(
          (s) =>
            (keyNote.textContent = s.stored
              ? SETTINGS_COPY.keyStored
              : s.inForce
                ? SETTINGS_COPY.keyEnv
                : SETTINGS_COPY.keyNone),
        )
        .catch(() => {});
    refreshKey();

    const save = async (): Promise<boolean> => {
      const opt = (v: string) => (v.trim() ? v.trim() : undefined);
      const next = {
        ...p,
        persona: persona.value,
        backend: {
          transport: transport.value,
          base_url: opt(base.value)?.replace(/\/+$/, ""),
          model: opt(model.value),
          push_url: opt(push.value),
          broker_base_url: opt(broker.value),
        },
      };
      const parsed = PresetSchema.safeParse(next);
      if (!parsed.success) {
        const i = parsed.error.issues[0]!;
        verdict.className = "verdict bad";
        verdict.textContent = `Not saved: ${i.path.join(".")}: ${i.message}`;
        return false;
      }
      if (!(await change("preset_save", { preset: parsed.data }))) return false;
      if (key.value) {
        await bridge.invoke("api_key_set", { presetId: p.id, key: key.value });
        key.value = "";
        refreshKey();
      }
      await kv.settled();
      return true;
    };
    const test = async () => {
      if (!(await save())) return;
      verdict.className = "verdict";
      verdict.textContent = "Testing…";
      const r = await bridge
        .invoke<{ ok: boolean; verdict: string; models: string[] }>("backend_test", { presetId: p.id })
        .catch((e: Error) => ({ ok: false, verdict: e.message, models: [] as string[] }));
      verdict.className = `verdict ${r.ok ? "good" : "bad"}`;
      verdict.textContent = r.verdict;
      replace(models, ...r.models.map((m) => h("option", { value: m })));
      if (r.models.length) {
        replace(
          modelSelect,
          h("option", { value: "" }, "Pick a model…"),
          ...r.models.map((m) => h("option", { value: m, selected: m === model.value }, m)),
        );
        modelSelect.hidden = false;
      }
    };
    replace(
      backend,
      h("h2", {}, `Backend of ${p.name}`),
      field("Transport", transport),
      field("Base URL", base, "OpenAI-compatible, ending in /v1 (Ollama, vLLM, OpenAI, …)"),
      field(
        "Model",
        h("div", { class: "row" }, model, modelSelect, models),
        "Pick from the backend's list after a connection test, or type a name.",
      ),
      field("API key", key, keyNote),
      field("Push URL", push, "Only for the push transport."),
      field("Persona", persona),
      field("Avatar", avatarRow, "A VRM 0.x or 1.0 file; drop it here or choose it."),
      h(
        "details",
        { class: "deprecated" },
        h("summary", {}, "broker_base_url (deprecated)"),
        field("Expression Broker URL", broker, SETTINGS_COPY.deprecatedBroker),
      ),
      h(
        "div",
        { class: "row actions" },
        h(
          "button",
          {
            "data-testid": "save-backend",
            onclick: async () => {
              if (await save()) {
                verdict.className = "verdict good";
                verdict.textContent = SETTINGS_COPY.saved;
              }
            },
          },
          "Save",
        ),
        h(
          "button",
          { class: "secondary", "data-testid": "test-connection", onclick: test },
          "Test connection",
        ),
      ),
      verdict,
    );
  }

  // ---- switches ----
  function renderSwitches(): void {
    replace(
      switches,
      h("h2", {}, "Switches"),
      ...(Object.keys(SWITCH_KEYS) as SwitchId[]).map((id) => switchRow(ctx, id, true)),
    );
  }

  // ---- relations ----
  function renderRelations(): void {
    const p = getPreset(kv, selected);
    if (!p) return;
    const rows = relationRows(kv, p.id, openPresets(kv));
    replace(
      relations,
      h("h2", {}, `How ${p.name} feels`),
      h(
        "p",
        { class: "hint" },
        "From -20 (hostile) to 20 (close). The backend moves it a little at a time with a reason; your slider sets it outright.",
      ),
      ...rows.map((r) => {
        const out = h("output", {}, String(r.value));
        return h(
          "div",
          { class: "relation", "data-testid": `relation-${r.id}` },
          h(
            "div",
            { class: "row" },
            h("strong", {}, `toward ${r.label}`),
            h("span", { class: `band band-${r.band}` }, r.band),
            out,
          ),
          h("input", {
            type: "range",
            min: RELATION_MIN,
            max: RELATION_MAX,
            step: 1,
            value: r.value,
            "aria-label": `${p.name} toward ${r.label}`,
            "data-testid": `slider-${r.id}`,
            oninput: (e: Event) => (out.textContent = (e.target as HTMLInputElement).value),
            onchange: (e: Event) =>
              bridge
                .invoke("relation_set_by_user", {
                  presetId: p.id,
                  target: r.id,
                  value: Number((e.target as HTMLInputElement).value),
                })
                .catch((err: Error) => ctx.toast(err.message)),
          }),
          r.changes.length
            ? h(
                "ul",
                { class: "reasons" },
                ...r.changes.map((c) =>
                  h(
                    "li",
                    {},
                    h("span", { class: "delta" }, `${c.from} → ${c.to}`),
                    ` ${c.why} `,
                    h("small", {}, `(${c.who}, ${new Date(c.at).toLocaleString()})`),
                  ),
                ),
              )
            : h("p", { class: "hint" }, "No changes yet."),
        );
      }),
    );
  }

  // ---- vocabulary ----
  let vocabulary: Vocabulary | null = null;
  async function renderVocabulary(): Promise<void> {
    const r = await bridge
      .invoke<{ vocabulary: Vocabulary; file: string; error?: string }>("vocabulary_get")
      .catch(() => null);
    if (!r) return;
    vocabulary = r.vocabulary;
    const v = vocabulary;
    const offered = new Set(offeredMotions({ ...v, motion_selection: null }).map((m) => m.id));
    const selection = new Set(v.motion_selection ?? [...offered]);
    const editor = h(
      "textarea",
      { class: "json", rows: 14, spellcheck: false, "data-testid": "vocab-json" },
      JSON.stringify(v, null, 2),
    );
    const msg = h(
      "p",
      { class: "verdict", "data-testid": "vocab-verdict" },
      r.error ? `The file is invalid: ${r.error}` : "",
    );
    const store = async (next: unknown) => {
      try {
        await bridge.invoke("vocabulary_set", { vocabulary: next });
        msg.className = "verdict good";
        msg.textContent = SETTINGS_COPY.saved;
        void renderVocabulary();
      } catch (e) {
        msg.className = "verdict bad";
        msg.textContent = (e as Error).message;
      }
    };
    replace(
      vocab,
      h("h2", {}, "Vocabulary"),
      h("p", { class: "hint" }, `Stored in ${r.file}. The next turn declares what is saved here.`),
      h("h3", {}, "Emotions"),
      h(
        "div",
        { class: "chips" },
        ...v.emotions.map((e) => h("span", { class: "chip", title: e.description ?? "" }, e.id)),
      ),
      h("h3", {}, "Motions the model may use"),
      h(
        "div",
        { class: "chips" },
        ...v.motions.map((m) =>
          offered.has(m.id)
            ? h(
                "label",
                { class: "chip check", title: m.description ?? "" },
                h("input", {
                  type: "checkbox",
                  checked: selection.has(m.id),
                  "data-testid": `motion-${m.id}`,
                  onchange: (e: Event) => {
                    if ((e.target as HTMLInputElement).checked) selection.add(m.id);
                    else selection.delete(m.id);
                    void store({ ...v, motion_selection: [...offered].filter((id) => selection.has(id)) });
                  },
                }),
                m.id,
              )
            : h(
                "span",
                {
                  class: "chip muted",
                  title: m.reactive
                    ? "reactive: played by the client"
                    : m.ambient
                      ? "ambient idle variation"
                      : "not published",
                },
                m.id,
              ),
        ),
      ),
      h("h3", {}, "Voice"),
      h(
        "p",
        {},
        `${v.voice.engine} — `,
        v.voice.mode === "enum" ? `tags: ${v.voice.tags.map((t) => t.tag).join(", ")}` : "free-text tone",
      ),
      h(
        "details",
        {},
        h("summary", {}, "Edit as JSON"),
        editor,
        h(
          "button",
          {
            class: "secondary",
            onclick: () => {
              try {
                void store(JSON.parse(editor.value));
              } catch (e) {
                msg.className = "verdict bad";
                msg.textContent = `Not JSON: ${(e as Error).message}`;
              }
            },
          },
          "Save vocabulary",
        ),
      ),
      msg,
    );
  }

  function renderAll(): void {
    renderCharacters();
    renderBackend();
    renderVoiceCard(voiceCard, ctx, selected, getPreset(kv, selected)?.name ?? selected);
    renderRelations();
  }
  renderAll();
  renderSwitches();
  void renderVocabulary();
  kv.watch(
    (k) => k.startsWith("yui.presets"),
    () => {
      renderCharacters();
      renderRelations();
    },
  );
  kv.watch((k) => k.endsWith(".relations"), renderRelations);
  kv.watch((k) => Object.values(SWITCH_KEYS).includes(k as never), renderSwitches);
  void (vocabulary satisfies Vocabulary | null);
}

export type { Preset };
