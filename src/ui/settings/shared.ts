/**
 * What the sections of the settings screen share: the screen's state (the selected character, the one way to
 * change presets), the copy written once, the labelled field, and the id a new character gets.
 */
import type { CommandArgs, CommandName } from "../../protocol/commands.ts";
import { RESERVED_PRESET_IDS } from "../../protocol/preset.ts";
import type { ViewContext } from "../context.ts";
import { h } from "../dom.ts";

/** Copy the settings show, written once. */
export const SETTINGS_COPY = {
  deprecatedBroker: "Deprecated: removed in v0.6.0. The client-declared tool replaces it.",
  keyStored: "A key is stored in the host (it is never shown again).",
  keyEnv: "Using OPENAI_API_KEY from the host's environment.",
  keyNone: "No key: fine for a local backend such as Ollama.",
  keyDropped:
    "The address changed, so the stored API key was dropped: it is sent only where it was saved for. Enter it again.",
  saved: "Saved.",
} as const;

/** The settings screen as its sections see it. */
export interface SettingsScreen {
  readonly ctx: ViewContext;
  /** The character the Backend, Voice and relations sections show. */
  selected: string;
  /**
   * Sends a preset command to the host; false (after a toast) when refused. Preset changes are made by the host
   * in one transaction (docs/store.md), never read from this window's mirror and written back: another window
   * editing characters at the same moment keeps its edit.
   */
  change<C extends CommandName>(command: C, args: CommandArgs<C>): Promise<boolean>;
  /** Selects `presetId` and renders every per-character section again. */
  select(presetId: string): void;
}

/** One section of the screen: its card, and what draws the card again from the store. */
export interface Section {
  readonly card: HTMLElement;
  render(): void;
}

/** The card of the section `id` (the section's element id). */
export const sectionCard = (id: string): HTMLElement => h("section", { class: "card", id });

/** A labelled form field with an optional note under it. */
export const field = (label: string, control: HTMLElement, note?: HTMLElement | string): HTMLElement =>
  h(
    "label",
    { class: "field" },
    h("span", { class: "label" }, label),
    control,
    note ? h("small", {}, note) : null,
  );

/** A preset id from a name: lower-case slug, unique among `taken`, never a reserved id. */
export function slugFor(name: string, taken: Set<string>): string {
  const base =
    name
      .toLowerCase()
      .normalize("NFKD")
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-+|-+$/g, "")
      .slice(0, 48) || "character";
  let id = /^[a-z0-9]/.test(base) ? base : `c-${base}`;
  for (let n = 2; taken.has(id) || RESERVED_PRESET_IDS.includes(id); n++) id = `${base}-${n}`;
  return id;
}
