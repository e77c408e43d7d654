/**
 * Voice settings (docs/voice.md): per character `yui.<presetId>.voice` (on/off, engine and its connection),
 * the global mute `yui.voice`, and the engine's API key `yui.<presetId>.voice_api_key` (host-side only).
 * Pure: the host registers these schemas in the store; the page reads the values from its mirror.
 */
import { z } from "zod";
import { endpointUrl } from "./preset.ts";

/** The engines a character can speak with (the per-engine mapping is in engines.ts). */
export const VOICE_ENGINES = ["local", "openai", "elevenlabs"] as const;
export type VoiceEngineId = (typeof VOICE_ENGINES)[number];

/** Audio formats the OpenAI-compatible engine may ask for (`response_format`). */
export const SPEECH_FORMATS = ["wav", "mp3", "opus", "aac", "flac", "pcm"] as const;

const url = endpointUrl(/^https?$/, "base");

/** One character's voice. `engine` unset: the vocabulary's `voice.engine` when it names one, else local. */
export const VoiceSettingsSchema = z.strictObject({
  enabled: z.boolean(),
  engine: z.enum(VOICE_ENGINES).optional(),
  /** OpenAI-compatible: `…/v1`; ElevenLabs: the API origin. */
  base_url: url.optional(),
  model: z.string().max(200).optional(),
  /** Voice name or id; local: an espeak-ng voice (`en-us+f3`) or a `say` voice. */
  voice: z.string().max(200).optional(),
  /** OpenAI-compatible `response_format` (default wav). */
  format: z.enum(SPEECH_FORMATS).optional(),
});
export type VoiceSettings = z.infer<typeof VoiceSettingsSchema>;

/** Voice is on for a character until turned off (docs/voice.md#default). */
export const DEFAULT_VOICE_SETTINGS: VoiceSettings = { enabled: true };

export const GlobalVoiceSchema = z.strictObject({ muted: z.boolean() });

export const VOICE_KEYS = {
  preset: (presetId: string) => `yui.${presetId}.voice`,
  apiKey: (presetId: string) => `yui.${presetId}.voice_api_key`,
  global: "yui.voice",
} as const;

/** The route the page posts a segment to: `${VOICE_PREFIX}<presetId>`. */
export const VOICE_PREFIX = "/api/voice/";

/** A segment to speak, as the page posts it. */
export interface SpeechRequest {
  text: string;
  emotion_id?: string;
  emotion_text?: string;
  caption?: string;
}
