/** Settings → Characters: create, rename, make main, put on the desktop (open as a panel in the browser build), edit, delete. */
import { type Preset, PresetSchema } from "../../app/presets/preset.ts";
import { activePresetId, getPreset, listPresets, openPetIds } from "../../app/presets/presets.ts";
import { h, replace } from "../dom.ts";
import { type Section, type SettingsScreen, sectionCard, slugFor } from "./shared.ts";

/**
 * What the open/close button says: in the desktop app a character opened this way stands on the desktop in her
 * own window; in the browser build she gets a panel in the Chat view.
 */
export function openLabel(isOpen: boolean, desktopApp: boolean): string {
  if (desktopApp) return isOpen ? "Take off desktop" : "Put on desktop";
  return isOpen ? "Close panel" : "Open as panel";
}

/** One character's row: its name to rename, main or "Make main", its panel, Edit, Delete. */
function presetRow(
  s: SettingsScreen,
  p: Preset,
  main: string,
  open: Set<string>,
  many: boolean,
): HTMLElement {
  return h(
    "li",
    { class: p.id === s.selected ? "selected" : "", "data-testid": `preset-${p.id}` },
    h("span", { class: "avatar-dot" }, p.name.slice(0, 1)),
    h("input", {
      class: "rename",
      value: p.name,
      "aria-label": `Name of ${p.name}`,
      "data-testid": `rename-${p.id}`,
      maxlength: 64,
      onchange: (e: Event) => {
        const name = (e.target as HTMLInputElement).value.trim();
        if (name) void s.change("preset_save", { preset: { ...p, name } });
      },
    }),
    p.id === main
      ? h("span", { class: "tag" }, "main")
      : h(
          "button",
          {
            class: "small",
            "data-testid": `make-main-${p.id}`,
            onclick: () => void s.change("preset_activate", { presetId: p.id }),
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
            onclick: () => void s.change(open.has(p.id) ? "pet_close" : "pet_open", { presetId: p.id }),
          },
          openLabel(open.has(p.id), !!s.ctx.desktopApp),
        ),
    h("button", { class: "small ghost", onclick: () => s.select(p.id) }, "Edit"),
    many
      ? h(
          "button",
          {
            class: "small danger",
            title: `Delete ${p.name}`,
            onclick: () => {
              if (confirm(`Delete ${p.name}? Their conversation stays in the store.`))
                void s.change("preset_remove", { presetId: p.id });
            },
          },
          "Delete",
        )
      : null,
  );
}

/** The form that creates a character with the main one's backend, then selects it. */
function createForm(s: SettingsScreen): HTMLElement {
  const { kv } = s.ctx;
  const nameInput = h("input", {
    placeholder: "New character's name",
    "aria-label": "New character's name",
    "data-testid": "new-name",
    maxlength: 64,
  });
  return h(
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
        void s.change("preset_save", { preset }).then((saved) => {
          if (saved) s.select(id);
        });
      },
    },
    nameInput,
    h("button", { type: "submit", "data-testid": "create" }, "Create"),
  );
}

/** Mounts the Characters section. */
export function mountCharacters(s: SettingsScreen): Section {
  const card = sectionCard("characters");
  const render = () => {
    const { kv } = s.ctx;
    const main = activePresetId(kv);
    const open = new Set(openPetIds(kv));
    const presets = listPresets(kv);
    replace(
      card,
      h("h2", {}, "Characters"),
      h(
        "ul",
        { class: "preset-list" },
        ...presets.map((p) => presetRow(s, p, main, open, presets.length > 1)),
      ),
      createForm(s),
    );
  };
  return { card, render };
}
