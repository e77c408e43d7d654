/**
 * The speech scheduler (docs/voice.md#playback): segments are synthesized ahead, several at once, and
 * played strictly in order; a segment whose synthesis fails is skipped (reported, never a stall); clear()
 * drops what is queued, aborts syntheses in flight and stops what plays. Pure: synthesis and playback are
 * given (Web Audio in player.ts, anything in tests).
 */
import type { Segment } from "./segmenter.ts";

export interface SchedulerDeps<A> {
  synthesize(seg: Segment, signal: AbortSignal): Promise<A>;
  /** Plays the audio; resolves when it ended or the signal aborted. */
  play(audio: A, seg: Segment, signal: AbortSignal): Promise<void>;
  /** The segment's audio starts now. */
  onStart?(seg: Segment): void;
  onEnd?(seg: Segment): void;
  /** The segment could not be synthesized and was skipped. */
  onSkip?(seg: Segment, error: unknown): void;
  /** Nothing left to play (all added segments played or skipped, and finish() was called). */
  onIdle?(): void;
  /** Syntheses in flight at once, the one playing next included (default 3). */
  ahead?: number;
}

export interface SpeechScheduler {
  add(seg: Segment): void;
  /** No more segments for this turn: onIdle fires once the last one is done. */
  finish(): void;
  /** Drops everything queued and playing (Stop, a new turn). */
  clear(): void;
  /** Whether something is queued or playing. */
  busy(): boolean;
}

interface Item<A> {
  seg: Segment;
  result?: Promise<{ ok: true; audio: A } | { ok: false; error: unknown }>;
}

export function createSpeechScheduler<A>(deps: SchedulerDeps<A>): SpeechScheduler {
  const ahead = Math.max(1, deps.ahead ?? 3);
  let items: Item<A>[] = [];
  let next = 0; // index in items of the segment to play next
  let ac = new AbortController();
  let finished = false;
  let running = false;

  const startSyntheses = () => {
    const signal = ac.signal;
    for (let i = next; i < items.length && i < next + ahead; i++) {
      const it = items[i]!;
      if (it.result) continue;
      it.result = deps.synthesize(it.seg, signal).then(
        (audio) => ({ ok: true as const, audio }),
        (error: unknown) => ({ ok: false as const, error }),
      );
    }
  };

  const run = async () => {
    if (running) return;
    running = true;
    const signal = ac.signal;
    try {
      while (!signal.aborted && next < items.length) {
        startSyntheses();
        const it = items[next]!;
        const r = await it.result!;
        if (signal.aborted) return;
        if (r.ok) {
          deps.onStart?.(it.seg);
          // The next ones synthesize while this one plays.
          next++;
          startSyntheses();
          await deps.play(r.audio, it.seg, signal);
          if (signal.aborted) return;
          deps.onEnd?.(it.seg);
        } else {
          next++;
          deps.onSkip?.(it.seg, r.error);
        }
      }
      if (!signal.aborted && finished && next >= items.length) deps.onIdle?.();
    } finally {
      if (ac.signal === signal) running = false;
    }
  };

  return {
    add(seg) {
      items.push({ seg });
      startSyntheses();
      void run();
    },
    finish() {
      finished = true;
      if (!running && next >= items.length) deps.onIdle?.();
    },
    clear() {
      ac.abort();
      ac = new AbortController();
      items = [];
      next = 0;
      finished = false;
      running = false;
    },
    busy: () => next < items.length || running,
  };
}
