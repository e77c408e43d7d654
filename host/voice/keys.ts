/** Registers the voice keys in the store's table (docs/voice.md#settings, docs/store.md). */
import { z } from "zod";
import { DEFAULT_VOICE_SETTINGS, GlobalVoiceSchema, VoiceSettingsSchema } from "../../src/voice/settings.ts";
import { keySpec, registerKeySchema } from "../store/schema.ts";

// Imported from more than one entry point (host, yui speak): register once.
if (!keySpec("yui.voice")) {
  registerKeySchema({
    pattern: "yui.<presetId>.voice",
    schema: VoiceSettingsSchema,
    default: DEFAULT_VOICE_SETTINGS,
    doc: "The preset's voice: on/off, engine (local, openai, elevenlabs), base URL, model, voice, format.",
  });
  registerKeySchema({
    pattern: "yui.<presetId>.voice_api_key",
    schema: z.string().max(4096),
    default: "",
    secret: true,
    doc: "The API key of the preset's voice engine; host-side only, never sent to a page.",
  });
  registerKeySchema({
    pattern: "yui.voice",
    schema: GlobalVoiceSchema,
    default: { muted: false },
    doc: "The global voice mute of quick controls.",
  });
}
