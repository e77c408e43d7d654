/**
 * The microphone with its voice activity detector: Silero VAD (v5) in onnxruntime-web's wasm, both served by
 * the host from files the install brought (`/vad/`, copied there by the build; no CDN, no download at run
 * time), through @ricky0123/vad-web's MicVAD. The microphone is asked for with echo cancellation, noise
 * suppression and automatic gain; whether the platform granted echo cancellation is reported, so the
 * listener can raise its threshold while she speaks where it did not.
 */
import type { MicVAD } from "@ricky0123/vad-web";

/** Where the host serves the detector's files (vite.config.ts copies them into the build). */
export const VAD_ASSETS = "/vad/";

/** What the detector reports. */
export interface MicEvents {
  /** Speech began (the first frame over the threshold). */
  onSpeechStart(): void;
  /** An utterance ended: its 16 kHz samples, with the pad before it. */
  onSpeechEnd(audio: Float32Array): void;
  /** What began as speech was shorter than the shortest utterance kept. */
  onMisfire(): void;
  /** Every 32 ms frame (16 kHz) and its speech probability. */
  onFrame(probability: number, frame: Float32Array): void;
}

/** The detector's tuning (docs/voice.md#listening). */
export interface MicTuning {
  positive: number;
  negative: number;
  endSilenceMs: number;
  minUtteranceMs: number;
}

export interface Mic {
  /** Opens the microphone (again); resolves when audio flows. */
  start(): Promise<void>;
  /** Closes the microphone (the tracks stop: the platform's indicator goes off). */
  stop(): Promise<void>;
  tune(t: MicTuning): void;
  /** Whether the platform granted echo cancellation on the open track (null while closed). */
  echoCancelled(): boolean | null;
  dispose(): Promise<void>;
}

const constraints: MediaStreamConstraints = {
  audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
};

/** Loads the detector (once per page) and wraps it; the microphone stays closed until start(). */
export async function createMic(events: MicEvents, tuning: MicTuning): Promise<Mic> {
  const { MicVAD } = await import("@ricky0123/vad-web");
  let stream: MediaStream | null = null;
  const open = async () => {
    stream = await navigator.mediaDevices.getUserMedia(constraints);
    return stream;
  };
  const close = async (s: MediaStream) => {
    for (const t of s.getTracks()) t.stop();
    stream = null;
  };
  const vad: MicVAD = await MicVAD.new({
    model: "v5",
    baseAssetPath: VAD_ASSETS,
    onnxWASMBasePath: VAD_ASSETS,
    startOnLoad: false,
    getStream: open,
    resumeStream: open,
    pauseStream: close,
    positiveSpeechThreshold: tuning.positive,
    negativeSpeechThreshold: tuning.negative,
    redemptionMs: tuning.endSilenceMs,
    minSpeechMs: tuning.minUtteranceMs,
    preSpeechPadMs: 300,
    submitUserSpeechOnPause: false,
    onSpeechStart: () => events.onSpeechStart(),
    onSpeechEnd: (audio) => events.onSpeechEnd(audio),
    onVADMisfire: () => events.onMisfire(),
    onFrameProcessed: (p, frame) => events.onFrame(p.isSpeech, frame),
    ortConfig: (ort) => {
      ort.env.logLevel = "error";
      // One thread: the page is not cross-origin isolated, and the detector is small.
      ort.env.wasm.numThreads = 1;
    },
  });
  return {
    start: () => vad.start(),
    stop: () => vad.pause(),
    tune: (t) =>
      vad.setOptions({
        positiveSpeechThreshold: t.positive,
        negativeSpeechThreshold: t.negative,
        redemptionMs: t.endSilenceMs,
        minSpeechMs: t.minUtteranceMs,
      }),
    echoCancelled: () => {
      const track = stream?.getAudioTracks()[0];
      if (!track) return null;
      return track.getSettings().echoCancellation === true;
    },
    dispose: () => vad.destroy().catch(() => {}),
  };
}
