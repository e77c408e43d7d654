/**
 * Web Audio playback of speech segments: each decoded segment plays through an AnalyserNode, whose
 * spectrum and level drive the mouth (lipsync.ts). One AudioContext per player, created on first use (after
 * the user's Send, so autoplay rules allow it).
 */
import { CLOSED, type MouthWeights, mouthFromSpectrum, rms } from "./lipsync.ts";

export interface VoicePlayer {
  readonly context: AudioContext;
  decode(bytes: ArrayBuffer): Promise<AudioBuffer>;
  /** Plays `buffer` now; resolves when it ended or `signal` aborted (which stops it). */
  play(buffer: AudioBuffer, signal: AbortSignal): Promise<void>;
  /** Whether a segment is sounding. */
  playing(): boolean;
  /** Mouth weights from what sounds right now (closed in silence). */
  mouth(): MouthWeights;
  close(): Promise<void>;
}

export function createVoicePlayer(context: AudioContext = new AudioContext()): VoicePlayer {
  const analyser = context.createAnalyser();
  analyser.fftSize = 2048;
  analyser.smoothingTimeConstant = 0.2;
  analyser.connect(context.destination);
  const time = new Float32Array(analyser.fftSize);
  const freq = new Float32Array(analyser.frequencyBinCount);
  const mags = new Float32Array(analyser.frequencyBinCount);
  let sounding = 0;
  // An analyser with nothing playing stops rendering and keeps its last window: until a new segment has
  // filled one whole window, part of what it holds is the previous segment's sound, not this one's.
  let freshAt = 0;
  const windowSeconds = analyser.fftSize / context.sampleRate;
  return {
    context,
    decode: (bytes) => context.decodeAudioData(bytes.slice(0)),
    async play(buffer, signal) {
      if (signal.aborted) return;
      if (context.state !== "running") {
        // A page the user never clicked may not start audio: the segment passes silently (its cues still
        // play) rather than waiting for ever.
        await Promise.race([context.resume().catch(() => {}), new Promise((r) => setTimeout(r, 300))]);
        if ((context.state as string) !== "running") return;
      }
      const src = context.createBufferSource();
      src.buffer = buffer;
      src.connect(analyser);
      sounding++;
      await new Promise<void>((resolve) => {
        const done = () => {
          signal.removeEventListener("abort", stop);
          resolve();
        };
        const stop = () => {
          try {
            src.stop();
          } catch {}
          done();
        };
        src.onended = done;
        signal.addEventListener("abort", stop, { once: true });
        src.start();
        freshAt = context.currentTime + windowSeconds;
      });
      sounding--;
      src.disconnect();
    },
    playing: () => sounding > 0,
    mouth() {
      if (sounding === 0 || context.currentTime < freshAt) return { ...CLOSED };
      analyser.getFloatTimeDomainData(time);
      analyser.getFloatFrequencyData(freq);
      for (let i = 0; i < freq.length; i++) mags[i] = Number.isFinite(freq[i]!) ? 10 ** (freq[i]! / 20) : 0;
      return mouthFromSpectrum(mags, context.sampleRate, analyser.fftSize, rms(time));
    },
    close: () => context.close(),
  };
}
