/**
 * Settings → Vocabulary: the emotions, the motions the model may use as checkboxes (the expression-motion
 * selection), the voice engine and its tags, and the whole file as JSON with validation. The host reads and
 * writes the file (`vocabulary_get`, `vocabulary_set`); the next turn declares what is saved.
 */
import { offeredMotions, type Vocabulary } from "../../app/vocabulary/vocabulary.ts";
import type { ViewContext } from "../context.ts";
import { h, replace } from "../dom.ts";
import { SETTINGS_COPY, type Section, sectionCard } from "./shared.ts";

/** The motions: the offered ones as checkboxes of the selection, the others muted with why. */
function motionChips(v: Vocabulary, store: (next: Vocabulary) => void): HTMLElement {
  const offered = new Set(offeredMotions({ ...v, motion_selection: null }).map((m) => m.id));
  const selection = new Set(v.motion_selection ?? [...offered]);
  return h(
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
                store({ ...v, motion_selection: [...offered].filter((id) => selection.has(id)) });
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
  );
}

/** Mounts the Vocabulary section; `render` reads the file from the host and draws it. */
export function mountVocabulary(ctx: ViewContext): Section & { render(): Promise<void> } {
  const card = sectionCard("vocabulary");
  const render = async (): Promise<void> => {
    const r = await ctx.bridge.invoke("vocabulary_get", {}).catch(() => null);
    if (!r) return;
    const v = r.vocabulary;
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
        await ctx.bridge.invoke("vocabulary_set", { vocabulary: next });
        msg.className = "verdict good";
        msg.textContent = SETTINGS_COPY.saved;
        void render();
      } catch (e) {
        msg.className = "verdict bad";
        msg.textContent = (e as Error).message;
      }
    };
    const saveJson = () => {
      try {
        void store(JSON.parse(editor.value));
      } catch (e) {
        msg.className = "verdict bad";
        msg.textContent = `Not JSON: ${(e as Error).message}`;
      }
    };
    replace(
      card,
      h("h2", {}, "Vocabulary"),
      h("p", { class: "hint" }, `Stored in ${r.file}. The next turn declares what is saved here.`),
      h("h3", {}, "Emotions"),
      h(
        "div",
        { class: "chips" },
        ...v.emotions.map((e) => h("span", { class: "chip", title: e.description ?? "" }, e.id)),
      ),
      h("h3", {}, "Motions the model may use"),
      motionChips(v, (next) => void store(next)),
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
        h("button", { class: "secondary", onclick: saveJson }, "Save vocabulary"),
      ),
      msg,
    );
  };
  return { card, render };
}
