/**
 * Listening settings (docs/voice.md#listening): one per device, `yui.listen` (hands-free on/off, the
 * transcription engine and its connection, the voice activity detector's sensitivity and timings, the
 * language), and the transcription engine's API key `yui.listen_api_key` (host-side only). Pure: the host
 * registers these in the store; the page reads them from its mirror.
 */
import { z } from "zod";
import { endpointUrl } from "./preset.ts";

/** The engines that turn speech into text. */
export const LISTEN_ENGINES = ["local", "openai"] as const;
export type ListenEngineId = (typeof LISTEN_ENGINES)[number];

/** Bounds and defaults of the detector's settings (the defaults work for normal speech at normal volume). */
export const LISTEN_LIMITS = {
  sensitivity: { min: 0, max: 1, default: 0.5 },
  end_silence_ms: { min: 200, max: 3000, default: 700 },
  min_utterance_ms: { min: 100, max: 3000, default: 400 },
} as const;

// A base URL: no #fragment, no ?query (paths are added to it), as every base URL the host calls.
const url = endpointUrl(/^https?$/, "base");

/** The device's listening settings. */
export const ListenSettingsSchema = z.strictObject({
  /** Hands-free: the microphone is open and every utterance becomes a turn. Off until the user turns it on. */
  hands_free: z.boolean(),
  /** Unset: local. */
  engine: z.enum(LISTEN_ENGINES).optional(),
  /** OpenAI-compatible: `…/v1` (default https://api.openai.com/v1). */
  base_url: url.optional(),
  /** OpenAI-compatible model (default whisper-1). */
  model: z.string().max(200).optional(),
  /** ISO 639-1 code (`en`, `ja`); unset: the engine decides (local: English). */
  language: z
    .string()
    .regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/, "a language code such as en or ja")
    .optional(),
  /** 0 (only loud, clear speech) … 1 (the faintest voice); the detector's threshold follows it. */
  sensitivity: z.number().min(LISTEN_LIMITS.sensitivity.min).max(LISTEN_LIMITS.sensitivity.max).optional(),
  /** Silence that ends an utterance. */
  end_silence_ms: z
    .int()
    .min(LISTEN_LIMITS.end_silence_ms.min)
    .max(LISTEN_LIMITS.end_silence_ms.max)
    .optional(),
  /** Speech shorter than this is dropped (a cough, a click). */
  min_utterance_ms: z
    .int()
    .min(LISTEN_LIMITS.min_utterance_ms.min)
    .max(LISTEN_LIMITS.min_utterance_ms.max)
    .optional(),
});
export type ListenSettings = z.infer<typeof ListenSettingsSchema>;

/** Listening is off until the user turns it on; everything else has a default that works. */
export const DEFAULT_LISTEN_SETTINGS: ListenSettings = { hands_free: false };

/** The OpenAI-compatible engine's defaults. */
export const TRANSCRIBE_DEFAULTS = { base_url: "https://api.openai.com/v1", model: "whisper-1" } as const;

/** The base URL the device's listening engine is called at, without a trailing slash (none for local). */
export function listenBase(settings: ListenSettings): string | undefined {
  if ((settings.engine ?? "local") === "local") return undefined;
  return (settings.base_url ?? TRANSCRIBE_DEFAULTS.base_url).replace(/\/+$/, "");
}

export const LISTEN_KEYS = {
  settings: "yui.listen",
  apiKey: "yui.listen_api_key",
} as const;

/** The route the page posts an utterance to (a 16-bit PCM WAV body); answers a `Transcript`. */
export const LISTEN_PATH = "/api/listen";

/** Longest body the route accepts: about two minutes of 16 kHz 16-bit mono. */
export const LISTEN_MAX_BYTES = 4 * 1024 * 1024;

/** What the route and `yui listen` answer for one utterance. */
export const TranscriptSchema = z.object({
  engine: z.enum(LISTEN_ENGINES),
  text: z.string(),
  audio_ms: z.number(),
  transcribe_ms: z.number(),
});
export type Transcript = z.infer<typeof TranscriptSchema>;

/**
 * The detector's thresholds (Silero's speech probability per 32 ms frame) for a sensitivity: the middle is
 * @ricky0123/vad-web's own tuning for Silero v5 (0.3 to start speech, 0.25 to end it).
 */
export function vadThresholds(sensitivity: number): { positive: number; negative: number } {
  const s = Math.min(1, Math.max(0, sensitivity));
  // 0 → 0.55 (only clear speech), 0.5 → 0.3, 1 → 0.1 (the faintest voice).
  const positive = Math.max(0.1, Math.round((0.55 - 0.5 * s) * 100) / 100);
  return { positive, negative: Math.max(0.05, Math.round((positive - 0.05) * 100) / 100) };
}

/** The start threshold while she speaks and the platform gave no echo cancellation: her voice must not count. */
export function raisedThreshold(positive: number): number {
  return Math.min(0.9, Math.round((positive + 0.4) * 100) / 100);
}
