/**
 * The per-engine mapping, in one place (docs/voice.md): how each engine renders a cue's emotion, its
 * `emotion_text` and its `caption`, and each engine's defaults. Pure: the host (host/voice/) sends what
 * this returns.
 */
import type { Vocabulary } from "../app/vocabulary/vocabulary.ts";
import type { SpeechRequest, VoiceEngineId } from "../protocol/voice.ts";

/** Defaults per engine. */
export const ENGINE_DEFAULTS: Record<
  VoiceEngineId,
  { label: string; base_url?: string; model?: string; voice?: string }
> = {
  local: { label: "Local (espeak-ng on Linux, say on macOS)" },
  openai: {
    label: "OpenAI-compatible speech (/audio/speech)",
    base_url: "https://api.openai.com/v1",
    model: "gpt-4o-mini-tts",
    voice: "alloy",
  },
  elevenlabs: {
    label: "ElevenLabs v3 (audio tags)",
    base_url: "https://api.elevenlabs.io",
    model: "eleven_v3",
  },
};

/**
 * Eleven v3's audio tags (ElevenLabs, "Prompting Eleven v3": emotions, delivery and reactions), written
 * inline before the text as `[tag]`. Paste it as the vocabulary's voice to make emotion_text this enum:
 * `{ "engine": "elevenlabs", "mode": "enum", "tags": ELEVENLABS_V3_TAGS }`.
 */
export const ELEVENLABS_V3_TAGS: { tag: string; meaning: string }[] = [
  { tag: "happy", meaning: "glad, bright delivery" },
  { tag: "excited", meaning: "eager, energetic" },
  { tag: "curious", meaning: "inquisitive, wondering" },
  { tag: "sad", meaning: "downcast" },
  { tag: "crying", meaning: "tearful, breaking voice" },
  { tag: "angry", meaning: "cross, sharp" },
  { tag: "annoyed", meaning: "irritated" },
  { tag: "sarcastic", meaning: "dry, ironic" },
  { tag: "mischievously", meaning: "playful, teasing" },
  { tag: "nervous", meaning: "uneasy, hesitant" },
  { tag: "surprised", meaning: "startled" },
  { tag: "thoughtful", meaning: "pondering" },
  { tag: "whispers", meaning: "whispered, secret" },
  { tag: "shouts", meaning: "loud, called out" },
  { tag: "laughs", meaning: "laughs, then speaks" },
  { tag: "giggles", meaning: "a small laugh" },
  { tag: "sighs", meaning: "a sigh before the words" },
  { tag: "exhales", meaning: "a breath out, relief" },
];

/** espeak-ng / say prosody per emotion id of the shipped vocabulary: words per minute and pitch (0-99). */
export const LOCAL_PROSODY: Record<string, { rate: number; pitch: number }> = {
  neutral: { rate: 175, pitch: 50 },
  happy: { rate: 185, pitch: 64 },
  sad: { rate: 145, pitch: 36 },
  angry: { rate: 190, pitch: 42 },
  surprised: { rate: 195, pitch: 72 },
  relaxed: { rate: 160, pitch: 46 },
  shy: { rate: 158, pitch: 60 },
  thinking: { rate: 150, pitch: 46 },
};

/** What an engine is sent for one segment. */
export interface Direction {
  /** The text as the engine reads it (ElevenLabs: with the inline `[tag]`). */
  input: string;
  /** Voice instructions (OpenAI-compatible). */
  instructions?: string;
  /** Local engine prosody. */
  rate?: number;
  pitch?: number;
}

/** Models known not to take `instructions` (OpenAI documents it for gpt-4o-mini-tts, not tts-1). */
const NO_INSTRUCTIONS = /^tts-1(-hd)?$/;

/** Renders one segment's cue for `engine`, following the vocabulary's voice mode. */
export function direct(
  engine: VoiceEngineId,
  req: SpeechRequest,
  voice: Vocabulary["voice"],
  model?: string,
): Direction {
  const text = req.text;
  const tone = req.emotion_text?.trim();
  const caption = req.caption?.trim();
  switch (engine) {
    case "local": {
      // The emotion id, else an emotion_text naming one (free mode), picks the prosody.
      const p = LOCAL_PROSODY[req.emotion_id ?? ""] ?? LOCAL_PROSODY[tone?.toLowerCase() ?? ""];
      return { input: text, rate: p?.rate ?? 175, pitch: p?.pitch ?? 50 };
    }
    case "openai": {
      // The caption is the direction; a free-mode emotion_text joins it; an enum tag joins as its meaning.
      let toneText = tone;
      if (tone && voice.mode === "enum") {
        const t = voice.tags.find((x) => x.tag === tone);
        toneText = t ? `${t.tag}${t.meaning ? ` (${t.meaning})` : ""}` : undefined;
      }
      const parts = [caption, toneText ? `Tone: ${toneText}` : undefined].filter(Boolean);
      const instructions = parts.length && !NO_INSTRUCTIONS.test(model ?? "") ? parts.join(". ") : undefined;
      return { input: text, ...(instructions ? { instructions } : {}) };
    }
    case "elevenlabs": {
      // Enum mode: emotion_text is one of the vocabulary's tags, sent inline as `[tag]`. Free mode: a short
      // free emotion_text is still a v3 tag (v3 reads free bracketed directions); the caption is not sent.
      const tag =
        tone && (voice.mode !== "enum" || voice.tags.some((x) => x.tag === tone))
          ? tone.replace(/[[\]]/g, "").slice(0, 64)
          : undefined;
      return { input: tag ? `[${tag}] ${text}` : text };
    }
  }
}
