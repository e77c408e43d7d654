/**
 * Transcribing an utterance while the detector still waits out the silence that ends it: once the speech
 * has been quiet for SPECULATE_MS, what was heard so far is sent for transcription; if the user speaks again
 * the guess is dropped, and if the detector then ends the utterance the guess is its transcript. The wait for
 * the end of an utterance (700 ms by default) and the transcription overlap instead of adding up.
 */
import type { MicTuning } from "./mic.ts";
import { joinFrames } from "./wav.ts";

/** Quiet after speech before the guess is sent. */
export const SPECULATE_MS = 200;
/** Frames kept before the detected start (the detector pads utterances alike). */
const PAD_FRAMES = 10;
const FRAME_MS = 32;

export interface Speculation {
  /** Every frame the detector read, with its speech probability and the thresholds in force. */
  frame(probability: number, frame: Float32Array, tuning: MicTuning): void;
  /** The detector found the start of speech. */
  start(): void;
  /** The detector ended the utterance: the guess, when one was sent and the user did not speak again. */
  take(): Promise<{ text: string }> | null;
  /** The detector dropped what it heard (too short), or listening stopped. */
  drop(): void;
}

export function createSpeculation(
  transcribe: (audio: Float32Array, signal: AbortSignal) => Promise<{ text: string }>,
): Speculation {
  let ring: Float32Array[] = [];
  let heard: Float32Array[] | null = null;
  let quiet = 0;
  let guess: { ac: AbortController; promise: Promise<{ text: string }> } | null = null;
  const forget = () => {
    guess?.ac.abort();
    guess = null;
  };
  return {
    frame(p, frame, tuning) {
      ring = [...ring.slice(1 - PAD_FRAMES), frame];
      if (!heard) return;
      heard.push(frame);
      if (p >= tuning.positive) {
        quiet = 0;
        forget();
        return;
      }
      if (p < tuning.negative) quiet++;
      if (quiet * FRAME_MS >= SPECULATE_MS && !guess) {
        const ac = new AbortController();
        const promise = transcribe(joinFrames(heard), ac.signal);
        // A dropped guess's rejection (aborted) is nobody's error.
        promise.catch(() => {});
        guess = { ac, promise };
      }
    },
    start() {
      forget();
      heard = [...ring];
      quiet = 0;
    },
    take() {
      const g = guess;
      guess = null;
      heard = null;
      quiet = 0;
      return g?.promise ?? null;
    },
    drop() {
      forget();
      heard = null;
      quiet = 0;
    },
  };
}
