/**
 * Speech audio as the local recognizer reads it: 16 kHz, mono, 16-bit PCM WAV. A WAV of another rate, of
 * several channels or of 8/24/32-bit (or 32-bit float) samples is mixed down and resampled (linear: speech
 * recognition reads the band below 4 kHz, where linear interpolation is close enough).
 */
import { parseWav, pcmToWav } from "./audio.ts";

/** The rate the recognizers take. */
export const SPEECH_RATE = 16000;

/** A WAV's samples as mono floats in -1..1 with its rate; null when it is not a PCM WAV read here. */
export function wavSamples(buf: Uint8Array): { rate: number; samples: Float32Array } | null {
  const w = parseWav(buf);
  if (!w || w.channels < 1 || w.sampleRate < 1000) return null;
  const bytes = w.bitsPerSample / 8;
  if (![1, 2, 3, 4].includes(bytes)) return null;
  const fmtTag = formatTag(buf);
  const v = new DataView(buf.buffer, buf.byteOffset + w.dataOffset, w.dataBytes);
  const frames = Math.floor(w.dataBytes / (bytes * w.channels));
  const out = new Float32Array(frames);
  for (let i = 0; i < frames; i++) {
    let sum = 0;
    for (let c = 0; c < w.channels; c++) sum += sample(v, (i * w.channels + c) * bytes, bytes, fmtTag === 3);
    out[i] = sum / w.channels;
  }
  return { rate: w.sampleRate, samples: out };
}

function formatTag(buf: Uint8Array): number {
  // The "fmt " chunk follows the RIFF header in every WAV written by the tools and engines YUI meets.
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  return buf.length >= 22 ? v.getUint16(20, true) : 1;
}

function sample(v: DataView, o: number, bytes: number, float: boolean): number {
  if (bytes === 1) return (v.getUint8(o) - 128) / 128;
  if (bytes === 2) return v.getInt16(o, true) / 32768;
  if (bytes === 3)
    return ((v.getUint8(o + 2) << 24) | (v.getUint8(o + 1) << 16) | (v.getUint8(o) << 8)) / 2 ** 31;
  return float ? v.getFloat32(o, true) : v.getInt32(o, true) / 2 ** 31;
}

/** Linear resampling of mono samples. */
export function resample(samples: Float32Array, from: number, to: number): Float32Array {
  if (from === to) return samples;
  const n = Math.floor((samples.length * to) / from);
  const out = new Float32Array(n);
  const step = from / to;
  for (let i = 0; i < n; i++) {
    const x = i * step;
    const j = Math.floor(x);
    const a = samples[j] ?? 0;
    const b = samples[j + 1] ?? a;
    out[i] = a + (b - a) * (x - j);
  }
  return out;
}

/** Mono floats as a 16-bit PCM WAV. */
export function floatsToWav(samples: Float32Array, rate: number): Buffer {
  const pcm = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]!));
    pcm.writeInt16LE(Math.round(s < 0 ? s * 32768 : s * 32767), i * 2);
  }
  return pcmToWav(pcm, rate);
}

/** The WAV as 16 kHz mono 16-bit (unchanged when it is one already) with its length; null when not a WAV. */
export function toSpeechWav(buf: Buffer): { wav: Buffer; ms: number } | null {
  const w = parseWav(buf);
  if (!w) return null;
  if (w.sampleRate === SPEECH_RATE && w.channels === 1 && w.bitsPerSample === 16 && formatTag(buf) === 1)
    return {
      wav: pcmToWav(buf.subarray(w.dataOffset, w.dataOffset + w.dataBytes), SPEECH_RATE),
      ms: w.durationMs,
    };
  const s = wavSamples(buf);
  if (!s) return null;
  const out = resample(s.samples, s.rate, SPEECH_RATE);
  return { wav: floatsToWav(out, SPEECH_RATE), ms: (out.length / SPEECH_RATE) * 1000 };
}
