import { describe, expect, it } from "vitest";
import { parseWav, pcmToWav } from "./audio.ts";
import { floatsToWav, resample, SPEECH_RATE, toSpeechWav, wavSamples } from "./pcm16k.ts";

const tone = (n: number, rate: number, freq = 440) =>
  Float32Array.from({ length: n }, (_, i) => 0.5 * Math.sin((2 * Math.PI * freq * i) / rate));

describe("speech audio at 16 kHz", () => {
  it("keeps a 16 kHz mono 16-bit WAV as it is", () => {
    const wav = floatsToWav(tone(16000, 16000), 16000);
    const out = toSpeechWav(wav)!;
    expect(out.ms).toBe(1000);
    expect(out.wav.equals(wav)).toBe(true);
  });

  it("resamples 22.05 kHz (espeak-ng's rate) to 16 kHz, keeping the length and the tone", () => {
    const out = toSpeechWav(floatsToWav(tone(22050, 22050), 22050))!;
    const w = parseWav(out.wav)!;
    expect(w.sampleRate).toBe(SPEECH_RATE);
    expect(w.channels).toBe(1);
    expect(Math.round(out.ms)).toBe(1000);
    const s = wavSamples(out.wav)!.samples;
    // The 440 Hz sine still crosses zero 880 times a second.
    let crossings = 0;
    for (let i = 1; i < s.length; i++) if (s[i - 1]! < 0 !== s[i]! < 0) crossings++;
    expect(crossings).toBeGreaterThan(870);
    expect(crossings).toBeLessThan(890);
  });

  it("mixes stereo down to mono", () => {
    const pcm = Buffer.alloc(8);
    pcm.writeInt16LE(16384, 0);
    pcm.writeInt16LE(0, 2);
    pcm.writeInt16LE(-16384, 4);
    pcm.writeInt16LE(-16384, 6);
    const s = wavSamples(pcmToWav(pcm, 16000, 2))!;
    expect(Array.from(s.samples)).toEqual([0.25, -0.5]);
  });

  it("resamples linearly and refuses what is not a WAV", () => {
    expect(Array.from(resample(Float32Array.from([0, 1, 0, -1]), 16000, 32000)).slice(0, 4)).toEqual([
      0, 0.5, 1, 0.5,
    ]);
    expect(toSpeechWav(Buffer.from("not a wav at all, just text"))).toBeNull();
  });
});
