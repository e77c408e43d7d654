/**
 * Listening in a page (docs/voice.md#listening): hands-free (the detector finds each utterance, each becomes
 * what the user said) and push-to-talk (everything heard while held; partial transcripts while held, the
 * whole on release). While her voice plays, the user starting to speak interrupts her. The microphone is
 * opened only while hands-free is on or push-to-talk is held. The detector, the transcription and her voice
 * are handed in, so this logic runs in tests without a microphone.
 */
import { LISTEN_LIMITS, type ListenSettings, raisedThreshold, vadThresholds } from "../../protocol/listen.ts";
import type { Mic, MicEvents, MicTuning } from "./mic.ts";
import { createSpeculation } from "./speculate.ts";
import { joinFrames, MIC_RATE } from "./wav.ts";

/** What the indicator shows. */
export type ListenState = "off" | "starting" | "listening" | "hearing" | "talking" | "transcribing";

/** When things happened (performance.now()), for tests and bench:listen. */
export interface ListenEvent {
  type:
    | "open"
    | "close"
    | "speech-start"
    | "speech-end"
    | "misfire"
    | "sound"
    | "interrupt"
    | "partial"
    | "transcript"
    | "error";
  text?: string;
  /** Frames (32 ms each) the detector had read since the microphone opened: where in the audio it was. */
  frame?: number;
  at: number;
}

export interface ListeningOptions {
  openMic(events: MicEvents, tuning: MicTuning): Promise<Mic>;
  transcribe(audio: Float32Array, signal?: AbortSignal): Promise<{ text: string }>;
  settings(): ListenSettings;
  /** Whether her voice is playing now. */
  herVoice(): boolean;
  /** The user began speaking over her: stop her voice and her turn. */
  onInterrupt(): void;
  /** Push-to-talk's transcript so far (and its final text, before it is sent or kept). */
  onPartial(text: string): void;
  /** An utterance to send as the user's message. */
  onUtterance(text: string): void;
  onState(state: ListenState): void;
  onError(message: string): void;
  timeline?: ListenEvent[];
}

export interface Listening {
  setHandsFree(on: boolean): void;
  /** Push-to-talk pressed. */
  pushStart(): void;
  /** Push-to-talk released: `send` false keeps the transcript in the input to fix. */
  pushEnd(send: boolean): void;
  /** Whether push-to-talk is held. */
  talking(): boolean;
  /** The settings changed: tune the detector again. */
  retune(): void;
  state(): ListenState;
  dispose(): void;
}

/** How often push-to-talk shows what it heard so far. */
const PARTIAL_EVERY_MS = 1500;
/** Push-to-talk shorter than this sends nothing (a tap). */
const MIN_TALK_MS = 250;

/** Root-mean-square level of a frame. */
function rms(frame: Float32Array): number {
  let sum = 0;
  for (const v of frame) sum += v * v;
  return Math.sqrt(sum / (frame.length || 1));
}

/** The detector's tuning from the settings (raised while she speaks without echo cancellation). */
export function tuningOf(s: ListenSettings, raised = false): MicTuning {
  const t = vadThresholds(s.sensitivity ?? LISTEN_LIMITS.sensitivity.default);
  return {
    positive: raised ? raisedThreshold(t.positive) : t.positive,
    negative: raised ? raisedThreshold(t.positive) - 0.05 : t.negative,
    endSilenceMs: s.end_silence_ms ?? LISTEN_LIMITS.end_silence_ms.default,
    minUtteranceMs: s.min_utterance_ms ?? LISTEN_LIMITS.min_utterance_ms.default,
  };
}

/** Push-to-talk while held: the frames heard, the audio since the last partial, the partial in flight. */
interface Held {
  frames: Float32Array[];
  sinceMs: number;
  partial: AbortController | null;
}

/** What the transcriptions need of the listening around them. */
interface TurnContext {
  o: ListeningOptions;
  log(type: ListenEvent["type"], text?: string): void;
  set(s: ListenState): void;
  state(): ListenState;
  idle(): ListenState;
  /** Push-to-talk held now, if it is. */
  held(): Held | null;
}

/** A hands-free utterance (or its early guess, speculate.ts) transcribed and sent as the user's message. */
async function transcribeUtterance(
  c: TurnContext,
  audio: Float32Array,
  early: Promise<{ text: string }> | null,
): Promise<void> {
  c.set("transcribing");
  try {
    const { text } = await (early ?? c.o.transcribe(audio));
    c.log("transcript", text);
    if (text.trim()) c.o.onUtterance(text.trim());
  } catch (e) {
    c.log("error", (e as Error).message);
    c.o.onError((e as Error).message);
  } finally {
    c.set(c.state() === "transcribing" ? c.idle() : c.state());
  }
}

/** Push-to-talk let go: the whole recording transcribed, shown, and sent unless kept to fix. */
async function transcribeHeld(c: TurnContext, audio: Float32Array, send: boolean): Promise<void> {
  c.set("transcribing");
  try {
    const { text } = await c.o.transcribe(audio);
    c.log("transcript", text);
    c.o.onPartial(text.trim());
    if (send && text.trim()) c.o.onUtterance(text.trim());
  } catch (e) {
    c.o.onError((e as Error).message);
  } finally {
    c.set(c.idle());
  }
}

/** Push-to-talk held: the words so far, shown while it is still held (one at a time). */
function partial(c: TurnContext, t: Held): void {
  t.sinceMs = 0;
  const ac = new AbortController();
  t.partial = ac;
  c.o
    .transcribe(joinFrames(t.frames), ac.signal)
    .then(
      ({ text }) => {
        if (c.held() === t && !ac.signal.aborted && text.trim()) {
          c.log("partial", text);
          c.o.onPartial(text.trim());
        }
      },
      () => {},
    )
    .finally(() => {
      if (t.partial === ac) t.partial = null;
    });
}

/** A frame heard while push-to-talk is held: kept, and the words so far every PARTIAL_EVERY_MS of audio. */
function heldFrame(c: TurnContext, t: Held, frame: Float32Array): void {
  t.frames.push(frame);
  t.sinceMs += (frame.length / MIC_RATE) * 1000;
  if (t.sinceMs >= PARTIAL_EVERY_MS && !t.partial) partial(c, t);
}

/** Creates the page's listening; nothing is opened until hands-free is turned on or push-to-talk held. */
export function createListening(o: ListeningOptions): Listening {
  let mic: Mic | null = null;
  let micLoading: Promise<Mic> | null = null;
  let open = false;
  let handsFree = false;
  let talk: Held | null = null;
  let state: ListenState = "off";
  let raised = false;
  let disposed = false;
  let ops: Promise<unknown> = Promise.resolve();
  let frames = 0;
  /** Whether the microphone has carried sound since it opened (diagnostics: where the audio began). */
  let sounded = false;
  let tuning = tuningOf(o.settings());
  const guess = createSpeculation((audio, signal) => o.transcribe(audio, signal));
  let utterances: Promise<unknown> = Promise.resolve();
  const log = (type: ListenEvent["type"], text?: string) =>
    o.timeline?.push({ type, text, frame: frames, at: performance.now() });
  const set = (s: ListenState) => {
    if (s === state) return;
    state = s;
    o.onState(s);
  };
  const idle = (): ListenState => (talk ? "talking" : open ? "listening" : "off");
  const turns: TurnContext = { o, log, set, state: () => state, idle, held: () => talk };

  const events: MicEvents = {
    onSpeechStart() {
      log("speech-start");
      if (talk || !handsFree) return;
      guess.start();
      if (o.herVoice()) {
        log("interrupt");
        o.onInterrupt();
      }
      set("hearing");
    },
    onSpeechEnd(audio) {
      log("speech-end");
      if (talk || !handsFree) return;
      set("listening");
      const early = guess.take();
      // Utterances are transcribed one after another, so they become turns in the order they were said.
      utterances = utterances.then(() => transcribeUtterance(turns, audio, early));
    },
    onMisfire() {
      log("misfire");
      guess.drop();
      if (!talk) set(idle());
    },
    onFrame(p, frame) {
      frames++;
      if (!sounded && rms(frame) > 0.02) {
        sounded = true;
        log("sound");
      }
      if (handsFree && !talk) guess.frame(p, frame, tuning);
      if (talk) heldFrame(turns, talk, frame);
      // Without echo cancellation her own voice reaches the microphone: only louder, clearer speech counts then.
      const want = o.herVoice() && mic?.echoCancelled() === false;
      if (want !== raised) {
        raised = want;
        tuning = tuningOf(o.settings(), raised);
        mic?.tune(tuning);
      }
    },
  };

  const getMic = () => {
    micLoading ??= o.openMic(events, tuningOf(o.settings())).then((m) => {
      mic = m;
      return m;
    });
    return micLoading;
  };

  /** Opens or closes the microphone to match hands-free and push-to-talk, one change at a time. */
  const sync = () => {
    ops = ops.then(async () => {
      if (disposed) return;
      const want = handsFree || talk !== null;
      if (want && !open) {
        set("starting");
        try {
          const m = await getMic();
          frames = 0;
          sounded = false;
          await m.start();
          open = true;
          log("open");
        } catch (e) {
          micLoading = null;
          const message = `The microphone could not be opened: ${(e as Error).message || String(e)}`;
          log("error", message);
          o.onError(message);
        }
        set(idle());
      } else if (!want && open) {
        open = false;
        await mic?.stop();
        log("close");
        set(idle());
      } else set(state === "hearing" || state === "transcribing" ? state : idle());
    });
  };

  return {
    setHandsFree(on) {
      if (on === handsFree) return;
      handsFree = on;
      sync();
    },
    pushStart() {
      if (talk || disposed) return;
      talk = { frames: [], sinceMs: 0, partial: null };
      if (o.herVoice()) {
        log("interrupt");
        o.onInterrupt();
      }
      set("talking");
      sync();
    },
    pushEnd(send) {
      const t = talk;
      if (!t) return;
      talk = null;
      t.partial?.abort();
      sync();
      const audio = joinFrames(t.frames);
      if ((audio.length / MIC_RATE) * 1000 < MIN_TALK_MS) return;
      utterances = utterances.then(() => transcribeHeld(turns, audio, send));
    },
    talking: () => talk !== null,
    retune() {
      tuning = tuningOf(o.settings(), raised);
      mic?.tune(tuning);
    },
    state: () => state,
    dispose() {
      disposed = true;
      handsFree = false;
      talk = null;
      void ops.then(() => mic?.dispose());
    },
  };
}
