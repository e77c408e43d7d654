/**
 * Settings: the characters (create, rename, make main, open as a panel), each one's backend (transport,
 * base URL, model from the backend's list, API key, push URL, the deprecated broker URL) with a connection
 * test, its voice, the switches, the relations (value, band, reasons, the user's slider) and the vocabulary.
 * Each section is its own module under src/ui/settings/; this file lays them out and redraws them on the
 * store keys they show.
 */
import { activePresetId } from "../app/presets/presets.ts";
import { bodySettingsKey } from "../protocol/body.ts";
import type { ViewContext } from "./context.ts";
import { h } from "./dom.ts";
import { isListenKey, listenSettingsOf } from "./listen-controls.ts";
import { mountBackend } from "./settings/backend.ts";
import { mountBody } from "./settings/body.ts";
import { mountCharacters } from "./settings/characters.ts";
import { isPresetKey, isRelationsKey, isSwitchKey } from "./settings/keys.ts";
import { mountListen } from "./settings/listen.ts";
import { mountRelations } from "./settings/relations.ts";
import type { SettingsScreen } from "./settings/shared.ts";
import { mountSwitches } from "./settings/switches.ts";
import { mountVocabulary } from "./settings/vocabulary.ts";
import { mountVoice } from "./settings/voice.ts";

/** Mounts the settings view. */
export function mountSettings(root: HTMLElement, ctx: ViewContext): void {
  const { kv, bridge } = ctx;
  const screen: SettingsScreen = {
    ctx,
    selected: activePresetId(kv),
    change: (command, args) =>
      bridge.invoke(command, args).then(
        () => true,
        (e: Error) => {
          ctx.toast(`Not saved: ${e.message}`);
          return false;
        },
      ),
    select: (presetId) => {
      screen.selected = presetId;
      renderSelected();
    },
  };
  const characters = mountCharacters(screen);
  const backend = mountBackend(screen);
  const voice = mountVoice(screen);
  const body = mountBody(screen);
  const switches = mountSwitches(ctx);
  const listen = mountListen(ctx);
  const relations = mountRelations(screen);
  const vocabulary = mountVocabulary(ctx);
  root.append(
    h("h1", {}, "Settings"),
    h(
      "div",
      { class: "settings-grid" },
      h("div", { class: "col" }, characters.card, backend.card, voice.card, body.card),
      h("div", { class: "col" }, switches.card, listen.card, relations.card, vocabulary.card),
    ),
  );
  // The backend section falls back to main's character when the selected one is gone, and the voice and
  // relations sections then follow it: the order matters.
  function renderSelected(): void {
    characters.render();
    backend.render();
    voice.render();
    body.render();
    relations.render();
  }
  renderSelected();
  switches.render();
  listen.render();
  void vocabulary.render();
  kv.watch(isPresetKey, () => {
    characters.render();
    relations.render();
  });
  kv.watch(isRelationsKey, relations.render);
  kv.watch((k) => k === bodySettingsKey(screen.selected), body.render);
  kv.watch(isSwitchKey, switches.render);
  // Only the switch redraws the card from the store: a redraw would drop fields being edited.
  kv.watch(isListenKey, () => {
    const box = listen.card.querySelector<HTMLInputElement>("[data-testid=hands-free]");
    if (box) box.checked = listenSettingsOf(kv).hands_free;
  });
}
