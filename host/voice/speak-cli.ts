/**
 * `yui speak`: synthesizes one text with a character's voice engine and writes the audio (docs/voice.md).
 * The headless way to check a voice, as `yui chat` is for the engine.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { activePresetId, getPreset } from "../../src/app/presets/presets.ts";
import { dataDir } from "../paths.ts";
import { openStore } from "../store/store.ts";
import { fileVocabulary, VOCABULARY_FILE } from "../vocabulary-source.ts";
import { durationMs } from "./audio.ts";
import { MAX_SEGMENT_CHARS, resolveVoice, synthesize } from "./synthesize.ts";

export const SPEAK_USAGE = `usage: yui speak --text TEXT [--preset ID] [--emotion ID] [--emotion-text TEXT] [--caption TEXT] --out FILE

Synthesizes TEXT with the character's voice engine (its voice settings, else the vocabulary's voice engine,
else the local engine: espeak-ng on Linux, say on macOS), writes the audio to FILE (WAV for the local
engine; the engine's format otherwise) and prints one JSON line:
  {"engine":"local","format":"wav","bytes":N,"duration_ms":N,"first_audio_ms":N}
Exit status 1 with a message when the engine is unreachable or not installed, 2 for bad options.

Options:
  --text TEXT           what to say (1-${MAX_SEGMENT_CHARS} characters)
  --preset ID           the character (default: the active preset)
  --emotion ID          the cue's emotion_id (the local engine maps it to rate and pitch)
  --emotion-text TEXT   the cue's emotion_text (free text, or a tag of the vocabulary's enum)
  --caption TEXT        the cue's caption (the OpenAI-compatible engine's instructions)
  --out FILE            where to write the audio
The store lives in the data directory ($YUI_DATA_DIR overrides it).
`;

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let v: Record<string, string | boolean | undefined>;
  try {
    v = parseArgs({
      args: argv,
      options: {
        text: { type: "string" },
        preset: { type: "string" },
        emotion: { type: "string" },
        "emotion-text": { type: "string" },
        caption: { type: "string" },
        out: { type: "string" },
        help: { type: "boolean" },
      },
      strict: true,
    }).values;
  } catch (e) {
    process.stderr.write(`yui speak: ${(e as Error).message}\n\n${SPEAK_USAGE}`);
    return 2;
  }
  if (v.help) {
    process.stdout.write(SPEAK_USAGE);
    return 0;
  }
  const text = typeof v.text === "string" ? v.text : "";
  if (!text.trim() || text.length > MAX_SEGMENT_CHARS || typeof v.out !== "string" || !v.out) {
    process.stderr.write(
      `yui speak: --text (1-${MAX_SEGMENT_CHARS} characters) and --out are required\n\n${SPEAK_USAGE}`,
    );
    return 2;
  }
  const dir = dataDir(env);
  const store = openStore(dir);
  try {
    const id = typeof v.preset === "string" ? v.preset : activePresetId(store);
    const preset = getPreset(store, id);
    if (!preset) {
      process.stderr.write(`yui speak: unknown preset ${id}\n`);
      return 1;
    }
    const vocabulary = fileVocabulary(join(dir, VOCABULARY_FILE))();
    const voice = resolveVoice(store, preset, vocabulary, env);
    const out = await synthesize(voice, {
      text,
      emotion_id: v.emotion as string | undefined,
      emotion_text: v["emotion-text"] as string | undefined,
      caption: v.caption as string | undefined,
    });
    writeFileSync(v.out, out.bytes);
    const d = durationMs(out.bytes, out.format);
    process.stdout.write(
      `${JSON.stringify({
        engine: out.engine,
        format: out.format,
        bytes: out.bytes.length,
        duration_ms: d === null ? null : Math.round(d),
        first_audio_ms: Math.round(out.firstAudioMs),
      })}\n`,
    );
    return 0;
  } catch (e) {
    process.stderr.write(`yui speak: ${(e as Error).message}\n`);
    return 1;
  } finally {
    store.close();
  }
}
