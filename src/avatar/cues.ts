// Cues anchored in the reply text: each plays once when the reveal (speech or text) reaches its offset.

import type { Cue } from "../protocol/cue.ts";

export type { Cue };

/** A cue placed at a character offset of the reply text. */
export interface AnchoredCue {
  offset: number;
  cue: Cue;
}

/** Plays anchored cues as a reveal position advances. */
export interface CueScheduler {
  /** Adds a cue at `offset` (a cue at or before the current position plays at the next reveal). */
  add(offset: number, cue: Cue): void;
  /** Advances the reveal to `position` and plays, in offset order, every cue it reached. */
  reveal(position: number): void;
  /** Cues not yet played. */
  pending(): AnchoredCue[];
  /** Drops every pending cue and rewinds to 0 (a new reply). */
  reset(): void;
}

/** Creates a scheduler that calls `play(cue, position)` for each cue the reveal reaches. */
export function createCueScheduler(play: (cue: Cue, position: number) => void): CueScheduler {
  let queue: AnchoredCue[] = [];
  let position = 0;
  return {
    add(offset, cue) {
      const at = Number.isFinite(offset) ? Math.max(0, Math.floor(offset)) : 0;
      // Stable insert: cues at the same offset keep their arrival order.
      let i = queue.length;
      while (i > 0 && queue[i - 1]!.offset > at) i--;
      queue.splice(i, 0, { offset: at, cue });
    },
    reveal(to) {
      position = Math.max(position, to);
      while (queue.length > 0 && queue[0]!.offset <= position) play(queue.shift()!.cue, position);
    },
    pending: () => [...queue],
    reset() {
      queue = [];
      position = 0;
    },
  };
}
