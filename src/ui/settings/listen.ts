/** Settings → Listening: hands-free, the transcription engine and the detector's settings (docs/voice.md). */
import type { ViewContext } from "../context.ts";
import { renderListenCard } from "../listen-controls.ts";
import { type Section, sectionCard } from "./shared.ts";

/** Mounts the Listening section. */
export function mountListen(ctx: ViewContext): Section {
  const card = sectionCard("listening");
  return { card, render: () => renderListenCard(card, ctx) };
}
