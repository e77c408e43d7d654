/**
 * The panel's voice (docs/voice.md): the reply spoken as it streams, cues at their sentence, the mouth moving,
 * the sentence being spoken marked in its reply, a note for a sentence that could not be spoken.
 */

import type { KeyValue } from "../app/presets/presets.ts";
import type { Segment } from "../voice/segmenter.ts";
import { createSpeech, type Speech } from "../voice/speech.ts";
import { h } from "./dom.ts";
import type { PanelView } from "./panel-view.ts";
import type { StageArea } from "./stage-area.ts";
import { speaks } from "./voice-controls.ts";

export type PanelVoice = ReturnType<typeof createPanelVoice>;

export function createPanelVoice(o: {
  kv: KeyValue;
  presetId: string;
  view: PanelView;
  stage: StageArea | null;
  /** Whether a turn is running (Stop stays shown while either runs). */
  busy: () => boolean;
}) {
  const { view, stage } = o;
  let speech: Speech | null = null;
  /** The speech the reply playing now speaks with (null: its voice was off). */
  let replySpeech: Speech | null = null;
  /** The sentence being spoken, marked in its reply by the repaint the reply playing now set. */
  let speakingSeg: Segment | null = null;
  let repaint: (() => void) | null = null;

  const speechNow = (): Speech | null => {
    if (!speaks(o.kv, o.presetId)) return null;
    speech ??= createSpeech({
      presetId: o.presetId,
      onReveal: (p) => stage?.reveal(p),
      onMouth: (w) => stage?.mouth(w),
      onSpeaking: (seg) => {
        speakingSeg = seg;
        repaint?.();
        view.el.classList.toggle("speaking", !!seg);
        view.stopBtn.hidden = !(o.busy() || seg);
      },
      onSkip: (seg, message) => {
        const said = seg.text.length > 60 ? `${seg.text.slice(0, 60)}…` : seg.text;
        view.log.append(
          h(
            "div",
            { class: "voice-note", role: "note", "data-testid": "voice-note" },
            `Not spoken: “${said}” (${message})`,
          ),
        );
      },
    });
    return speech;
  };

  return {
    /**
     * A new reply: the last one falls silent; returns the speech this reply speaks with, or null while the
     * character's voice is off. `paint` marks the sentence being spoken in this reply.
     */
    newReply(paint: () => void): Speech | null {
      speech?.newTurn();
      repaint = paint;
      replySpeech = speechNow();
      return replySpeech;
    },
    /** The sentence being spoken now, if any. */
    speaking: (): Segment | null => speakingSeg,
    active: (): boolean => speech?.active() ?? false,
    /** The last reply's playback ended: true when it played out (or had no voice), false when it was cut short. */
    finished: (): Promise<boolean> => replySpeech?.finished() ?? Promise.resolve(true),
    stop(): void {
      speech?.stop();
    },
    dispose(): void {
      speech?.dispose();
    },
  };
}
