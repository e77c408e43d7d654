/**
 * Her bubble drawn by the shell in a window of its own beside her head (docs/desktop.md "Her bubble"): the
 * page says what it shows (`bubble`) and where her face is (`face`, from the stage's handle after her frames);
 * the shell places the window where there is room, never over her face, inside the work area.
 */
import type { StageHandle } from "../avatar/stage.ts";
import type { PageRect } from "../protocol/shell.ts";
import type { BubbleView } from "./desktop-bubble.ts";
import type { ShellLink } from "./desktop-shell.ts";

/**
 * How often her face's box is read at most while she is drawn, and by how much it must move to be sent: her
 * breathing moves it a few pixels, which must not make her bubble jitter (the box has a margin for it).
 */
const FACE_MS = 150;
const FACE_SLOP = 8;

/** The bubble as `bubble` messages to the shell. */
export function shellBubble(shell: ShellLink): BubbleView {
  return {
    show: (bubble) => shell.send({ type: "bubble", bubble }),
    hide: () => shell.send({ type: "bubble", bubble: null }),
  };
}

/** Sends her face's box to the shell after her frames whenever it moved (her posture, her size, a walk). */
export function followFace(stage: StageHandle, shell: ShellLink): () => void {
  let last: PageRect | null = null;
  let sent = false;
  let at = 0;
  return stage.onFrame(() => {
    const now = performance.now();
    if (now - at < FACE_MS) return;
    at = now;
    const r = stage.faceBox();
    const same =
      sent &&
      (r === null || last === null
        ? r === last
        : r.every((v, i) => Math.abs(v - (last as PageRect)[i]!) < FACE_SLOP));
    if (same) return;
    last = r;
    sent = true;
    shell.send({ type: "face", rect: r });
  });
}
