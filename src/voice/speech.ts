/**
 * A character's speech in the page (docs/voice.md): the reply's text deltas are cut into segments
 * (segmenter.ts), each synthesized by the host's voice route with the cue in force at its text, played in
 * order (scheduler.ts, player.ts); cues anchored in the text are revealed when their sentence's audio
 * starts; the mouth follows the sound. A new turn or Stop clears everything.
 */
import { isSilent } from "../app/addressing/addressing.ts";
import type { Cue } from "../avatar/cues.ts";
import { type SpeechRequest, VOICE_PREFIX } from "../protocol/voice.ts";
import { CLOSED, type MouthWeights, smoothMouth } from "./lipsync.ts";
import { createVoicePlayer, type VoicePlayer } from "./player.ts";
import { createSpeechScheduler } from "./scheduler.ts";
import { createSegmenter, type Segment } from "./segmenter.ts";

/** What happened when, for tests and diagnostics (`t`: the audio clock in s, `at`: performance.now()). */
export interface VoiceEvent {
  type: "synthesize" | "synthesized" | "start" | "end" | "skip" | "reveal" | "clear" | "idle";
  index?: number;
  text?: string;
  position?: number;
  detail?: string;
  t: number;
  at: number;
}

export interface SpeechOptions {
  presetId: string;
  /** The host's origin (default: the page's). */
  base?: string;
  /** Reveals the stage's cues up to a text position. */
  onReveal?(position: number): void;
  onMouth?(weights: MouthWeights): void;
  /** The segment being spoken, or null when nothing is. */
  onSpeaking?(seg: Segment | null): void;
  /** A segment could not be spoken and was skipped. */
  onSkip?(seg: Segment, message: string): void;
  /** Events are appended here (the test hook reads the audio timeline from it). */
  timeline?: VoiceEvent[];
  /** Syntheses in flight at once (default 3). */
  ahead?: number;
  /** An existing player (tests); default one created on first use. */
  player?: VoicePlayer;
}

export interface Speech {
  /** A new reply begins: whatever was queued or playing stops. */
  newTurn(): void;
  text(delta: string): void;
  cue(offset: number, args: Cue): void;
  /** The reply's text is complete. */
  end(): void;
  /** Stop: drop everything queued and playing. */
  stop(): void;
  /** Whether segments are queued or playing. */
  active(): boolean;
  /**
   * The reply being spoken now, played out: true once its text has ended and every sentence has played (or been
   * skipped), false when it was stopped or a new reply began first.
   */
  finished(): Promise<boolean>;
  dispose(): void;
}

/** Synthesizes one segment through the host; rejects with the host's message. */
async function fetchSpeech(base: string, presetId: string, body: SpeechRequest, signal: AbortSignal) {
  const res = await fetch(`${base}${VOICE_PREFIX}${encodeURIComponent(presetId)}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    signal,
  });
  if (!res.ok) {
    const text = await res.text().catch(() => "");
    let message = `HTTP ${res.status}`;
    try {
      message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
    } catch {}
    throw new Error(message);
  }
  return res.arrayBuffer();
}

/** A promise with its resolver beside it (settles once; later calls do nothing). */
function deferred(): { promise: Promise<boolean>; resolve(v: boolean): void } {
  let resolve: (v: boolean) => void = () => {};
  const promise = new Promise<boolean>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

export function createSpeech(opts: SpeechOptions): Speech {
  const base = opts.base ?? globalThis.location?.origin ?? "";
  let player = opts.player ?? null;
  const getPlayer = () => {
    player ??= createVoicePlayer();
    return player;
  };
  const segmenter = createSegmenter();
  /** The current reply's playback: settled once, true at idle after end(), false when cleared first. */
  let played = deferred();
  let cues: { offset: number; cue: Cue }[] = [];
  let textEnd = 0;
  let ended = false;
  const log = (e: Omit<VoiceEvent, "t" | "at">) =>
    opts.timeline?.push({ ...e, t: player?.context.currentTime ?? 0, at: performance.now() });
  const reveal = (position: number) => {
    log({ type: "reveal", position });
    opts.onReveal?.(position);
  };

  /** The voice direction in force for a segment: every cue before its end, later fields winning. */
  const directionFor = (seg: Segment): SpeechRequest => {
    const d: SpeechRequest = { text: seg.text };
    for (const c of cues) {
      if (c.offset >= seg.end) break;
      for (const k of ["emotion_id", "emotion_text", "caption"] as const) {
        const v = c.cue[k];
        if (typeof v === "string" && v) d[k] = v;
      }
    }
    return d;
  };

  const scheduler = createSpeechScheduler<AudioBuffer>({
    ahead: opts.ahead,
    async synthesize(seg, signal) {
      log({ type: "synthesize", index: seg.index, text: seg.text });
      const bytes = await fetchSpeech(base, opts.presetId, directionFor(seg), signal);
      const audio = await getPlayer().decode(bytes);
      log({ type: "synthesized", index: seg.index });
      return audio;
    },
    play: (audio, _seg, signal) => getPlayer().play(audio, signal),
    onStart(seg) {
      log({ type: "start", index: seg.index, text: seg.text });
      opts.onSpeaking?.(seg);
      // A cue placed before or inside the sentence plays as its audio starts.
      reveal(seg.end - 1);
      mouthLoop();
    },
    onEnd(seg) {
      log({ type: "end", index: seg.index });
    },
    onSkip(seg, error) {
      const message = (error as Error)?.message ?? String(error);
      log({ type: "skip", index: seg.index, text: seg.text, detail: message });
      reveal(seg.end - 1);
      opts.onSkip?.(seg, message);
    },
    onIdle() {
      log({ type: "idle" });
      played.resolve(true);
      reveal(Number.MAX_SAFE_INTEGER);
      opts.onSpeaking?.(null);
    },
  });

  // The mouth follows the analyser every frame while a segment sounds, then eases shut and stops.
  let mouth: MouthWeights = { ...CLOSED };
  let raf = 0;
  let last = 0;
  const frame = (now: number) => {
    const dt = last ? Math.min(0.1, (now - last) / 1000) : 1 / 60;
    last = now;
    const target = player?.playing() ? player.mouth() : CLOSED;
    mouth = smoothMouth(mouth, target, dt);
    opts.onMouth?.(mouth);
    const closed = Object.values(mouth).every((v) => v === 0);
    raf = !player?.playing() && closed ? 0 : requestAnimationFrame(frame);
  };
  const mouthLoop = () => {
    if (raf) return;
    last = 0;
    raf = requestAnimationFrame(frame);
  };

  const clear = () => {
    played.resolve(false);
    played = deferred();
    scheduler.clear();
    segmenter.reset();
    cues = [];
    textEnd = 0;
    ended = false;
    log({ type: "clear" });
    opts.onSpeaking?.(null);
  };

  return {
    newTurn: clear,
    text(delta) {
      textEnd += delta.length;
      for (const seg of segmenter.push(delta)) if (!isSilent(seg.text)) scheduler.add(seg);
    },
    cue(offset, args) {
      const at = Number.isFinite(offset) ? Math.max(0, Math.floor(offset)) : textEnd;
      let i = cues.length;
      while (i > 0 && cues[i - 1]!.offset > at) i--;
      cues.splice(i, 0, { offset: at, cue: args });
    },
    end() {
      if (ended) return;
      ended = true;
      for (const seg of segmenter.flush()) if (!isSilent(seg.text)) scheduler.add(seg);
      scheduler.finish();
    },
    stop: clear,
    active: () => scheduler.busy(),
    finished: () => played.promise,
    dispose() {
      clear();
      if (raf) cancelAnimationFrame(raf);
      void player?.close().catch(() => {});
    },
  };
}
