/**
 * Her face across her stages (docs/avatar.md "Faces relax"): the stage that plays a reply's cue holds its face
 * while her speech (or the reply's text) goes on, and eases it back to rest the emotion's `hold` seconds after
 * (the vocabulary's, default FACE_HOLD_S); each change goes out as `yui://face` over the bridge, and every other
 * stage of the same character (the desktop window's, the Chat window's) shows the same face.
 */

import { createFaceHold } from "../avatar/face-hold.ts";
import type { CueResult, Stage } from "../avatar/stage.ts";
import { FACE_EVENT, FaceEventSchema } from "../protocol/events.ts";
import { FACE_HOLD_S, type Vocabulary } from "../protocol/vocabulary.ts";
import type { BridgeClient } from "./bridge-client.ts";

/** What the stage area tells the face: a cue played, her speech or text went on, a new reply. */
export interface StageFace {
  played(emotionId: string | undefined, result: CueResult): void;
  active(): void;
  newReply(): void;
  dispose(): void;
}

/** The part of the bridge the face needs. */
export type FaceBridge = Pick<BridgeClient, "on" | "emit" | "invoke">;

/** Shares `stage`'s face for `presetId` over `bridge`. */
export function shareFace(
  bridge: FaceBridge,
  presetId: string,
  stage: Pick<Stage, "playCue" | "relax">,
): StageFace {
  const source = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
  const send = (emotion: string | null) => bridge.emit(FACE_EVENT, { presetId, source, emotion });
  // Each emotion's hold from the vocabulary, read at start and at each reply (an edit reaches the next one).
  let holds = new Map<string, number>();
  const readHolds = () =>
    bridge
      .invoke("vocabulary_get", {})
      .then(({ vocabulary }: { vocabulary: Vocabulary }) => {
        holds = new Map(vocabulary.emotions.flatMap((e) => (e.hold === undefined ? [] : [[e.id, e.hold]])));
      })
      .catch(() => {});
  void readHolds();
  const face = createFaceHold(() => {
    stage.relax();
    send(null);
  });
  const off = bridge.on(FACE_EVENT, (payload) => {
    const parsed = FaceEventSchema.safeParse(payload);
    if (!parsed.success || parsed.data.presetId !== presetId || parsed.data.source === source) return;
    // Another stage of hers plays her face now: this one follows it, and its own hold ends.
    face.cancel();
    if (parsed.data.emotion === null) stage.relax();
    else stage.playCue({ emotion_id: parsed.data.emotion });
  });
  return {
    played(emotionId, result) {
      if (emotionId === undefined || result.emotion !== "played") return;
      face.show(holds.get(emotionId) ?? FACE_HOLD_S);
      send(emotionId);
    },
    active: () => face.active(),
    newReply: () => void readHolds(),
    dispose() {
      off();
      // A face held here would stay on her other stages: they rest with this one gone.
      if (face.holding()) send(null);
      face.cancel();
    },
  };
}
