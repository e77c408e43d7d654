/** Settings → Voice of the selected character: the card docs/voice.md describes, drawn by the voice UI. */
import { getPreset } from "../../app/presets/presets.ts";
import { renderVoiceCard } from "../voice-controls.ts";
import { type Section, type SettingsScreen, sectionCard } from "./shared.ts";

/** Mounts the Voice section. */
export function mountVoice(s: SettingsScreen): Section {
  const card = sectionCard("voice");
  const render = () =>
    renderVoiceCard(card, s.ctx, s.selected, getPreset(s.ctx.kv, s.selected)?.name ?? s.selected);
  return { card, render };
}
