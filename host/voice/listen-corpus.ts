/**
 * Speech with known transcripts, for listening's tests and bench:listen: the LibriVox clips that Debian's
 * pocketsphinx-testdata installs (human readers), and short requests spoken by flite (its 16 kHz voices) and
 * espeak-ng, made on the spot. Each synthesized phrase gets 300 ms of silence on both sides, as the page's
 * detector keeps around an utterance.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { floatsToWav, SPEECH_RATE, toSpeechWav, wavSamples } from "./pcm16k.ts";

export const LIBRIVOX_DIR = "/usr/share/pocketsphinx/test/data/librivox";

/** What a user says to a companion; spoken by flite and espeak-ng. */
export const PHRASES = [
  "what time is it",
  "tell me a joke",
  "good morning how are you",
  "what is the weather like today",
  "can you help me with my homework",
  "thank you very much",
  "how was your day",
  "let us talk about something else",
  "please open the browser",
  "good night see you tomorrow",
] as const;

export interface Recording {
  source: "librivox" | "flite" | "espeak-ng";
  file: string;
  ref: string;
}

/** The LibriVox clips with their transcripts; throws naming the package when it is missing. */
export function librivox(): Recording[] {
  const t = join(LIBRIVOX_DIR, "transcription");
  if (!existsSync(t)) throw new Error(`${t} is missing: install pocketsphinx-testdata`);
  return readFileSync(t, "utf8")
    .trim()
    .split("\n")
    .map((line) => {
      const m = /^<s> (.*) <\/s> \((.+)\)$/.exec(line.trim());
      if (!m) throw new Error(`unexpected transcription line: ${line}`);
      return { source: "librivox" as const, file: join(LIBRIVOX_DIR, `${m[2]}.wav`), ref: m[1]! };
    });
}

/** Pads a WAV with silence on both sides, at 16 kHz. */
export function padded(wav: Buffer, ms = 300): Buffer {
  const s = wavSamples(toSpeechWav(wav)!.wav)!.samples;
  const pad = Math.round((ms / 1000) * SPEECH_RATE);
  const out = new Float32Array(s.length + 2 * pad);
  out.set(s, pad);
  return floatsToWav(out, SPEECH_RATE);
}

/** The phrases spoken by flite (alternating its slt and kal16 voices) and espeak-ng (en-us), written to `dir`. */
export function synthesized(dir: string, phrases: readonly string[] = PHRASES): Recording[] {
  const out: Recording[] = [];
  phrases.forEach((p, i) => {
    const f = join(dir, `flite-${i}.wav`);
    execFileSync("flite", ["-voice", i % 2 ? "kal16" : "slt", "-t", p, "-o", f]);
    writeFileSync(f, padded(readFileSync(f)));
    out.push({ source: "flite", file: f, ref: p });
    const e = join(dir, `espeak-${i}.wav`);
    execFileSync("espeak-ng", ["-v", "en-us", "-w", e, "--", p]);
    writeFileSync(e, padded(readFileSync(e)));
    out.push({ source: "espeak-ng", file: e, ref: p });
  });
  return out;
}
