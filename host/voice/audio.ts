/**
 * Audio bytes the voice engines return: WAV parsing (duration, loudness), raw PCM wrapped as WAV, the
 * sizes of a streamed WAV (written before its length was known) fixed, and MP3 duration from frame headers.
 */

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  dataOffset: number;
  dataBytes: number;
  durationMs: number;
}

/** Parses a PCM WAV; null when it is not one. Sizes of a streamed WAV (0 or 0xFFFFFFFF) read as "to the end". */
export function parseWav(buf: Uint8Array): WavInfo | null {
  if (buf.length < 12) return null;
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const tag = (o: number) => String.fromCharCode(buf[o]!, buf[o + 1]!, buf[o + 2]!, buf[o + 3]!);
  if (tag(0) !== "RIFF" || tag(8) !== "WAVE") return null;
  let o = 12;
  let fmt: { channels: number; sampleRate: number; bits: number } | null = null;
  while (o + 8 <= buf.length) {
    const id = tag(o);
    const size = v.getUint32(o + 4, true);
    if (id === "fmt ") {
      fmt = {
        channels: v.getUint16(o + 10, true),
        sampleRate: v.getUint32(o + 12, true),
        bits: v.getUint16(o + 22, true),
      };
    } else if (id === "data") {
      if (!fmt) return null;
      const rest = buf.length - (o + 8);
      const dataBytes = size === 0 || size > rest ? rest : size;
      const frame = (fmt.channels * fmt.bits) / 8;
      return {
        sampleRate: fmt.sampleRate,
        channels: fmt.channels,
        bitsPerSample: fmt.bits,
        dataOffset: o + 8,
        dataBytes,
        durationMs: frame > 0 && fmt.sampleRate > 0 ? (dataBytes / frame / fmt.sampleRate) * 1000 : 0,
      };
    }
    o += 8 + size + (size % 2);
  }
  return null;
}

/** Root-mean-square level of a 16-bit WAV's samples, 0..1. */
export function wavRms(buf: Uint8Array): number {
  const w = parseWav(buf);
  if (w?.bitsPerSample !== 16) return 0;
  const v = new DataView(buf.buffer, buf.byteOffset + w.dataOffset, w.dataBytes - (w.dataBytes % 2));
  let sum = 0;
  const n = v.byteLength / 2;
  for (let i = 0; i < n; i++) {
    const s = v.getInt16(i * 2, true) / 32768;
    sum += s * s;
  }
  return n ? Math.sqrt(sum / n) : 0;
}

/** A 44-byte WAV header for 16-bit PCM. */
function header(dataBytes: number, sampleRate: number, channels: number): Buffer {
  const h = Buffer.alloc(44);
  h.write("RIFF", 0, "ascii");
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write("WAVEfmt ", 8, "ascii");
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20);
  h.writeUInt16LE(channels, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * channels * 2, 28);
  h.writeUInt16LE(channels * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write("data", 36, "ascii");
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** Wraps raw 16-bit little-endian PCM as a WAV. */
export function pcmToWav(pcm: Buffer, sampleRate: number, channels = 1): Buffer {
  const even = pcm.length - (pcm.length % 2);
  return Buffer.concat([header(even, sampleRate, channels), pcm.subarray(0, even)]);
}

/** A WAV whose sizes say what it holds (a streamed WAV, espeak-ng --stdout, carries placeholders). */
export function fixWav(buf: Buffer): Buffer {
  const w = parseWav(buf);
  if (w?.bitsPerSample !== 16) return buf;
  return pcmToWav(buf.subarray(w.dataOffset, w.dataOffset + w.dataBytes), w.sampleRate, w.channels);
}

const MP3_RATES = [
  [11025, 12000, 8000],
  [0, 0, 0],
  [22050, 24000, 16000],
  [44100, 48000, 32000],
];
const MP3_KBPS_V1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320];
const MP3_KBPS_V2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160];

/** Duration of an MPEG layer III stream from its frame headers (ID3v2 skipped); 0 when none is found. */
export function mp3DurationMs(buf: Uint8Array): number {
  let o = 0;
  if (buf[0] === 0x49 && buf[1] === 0x44 && buf[2] === 0x33 && buf.length > 10) {
    o = 10 + ((buf[6]! << 21) | (buf[7]! << 14) | (buf[8]! << 7) | buf[9]!);
  }
  let samples = 0;
  let rate = 0;
  while (o + 4 <= buf.length) {
    if (buf[o] !== 0xff || (buf[o + 1]! & 0xe0) !== 0xe0) {
      o++;
      continue;
    }
    const ver = (buf[o + 1]! >> 3) & 3;
    const layer = (buf[o + 1]! >> 1) & 3;
    const bi = buf[o + 2]! >> 4;
    const si = (buf[o + 2]! >> 2) & 3;
    const pad = (buf[o + 2]! >> 1) & 1;
    if (ver === 1 || layer !== 1 || bi === 0 || bi === 15 || si === 3) {
      o++;
      continue;
    }
    const sr = MP3_RATES[ver]![si]!;
    const kbps = (ver === 3 ? MP3_KBPS_V1 : MP3_KBPS_V2)[bi]!;
    const perFrame = ver === 3 ? 1152 : 576;
    const len = Math.floor(((perFrame / 8) * kbps * 1000) / sr) + pad;
    if (len <= 4) break;
    samples += perFrame;
    rate = sr;
    o += len;
  }
  return rate ? (samples / rate) * 1000 : 0;
}

/** Duration in ms of audio in `format`, or null when the format is not parsed here. */
export function durationMs(bytes: Uint8Array, format: string): number | null {
  if (format === "wav") return parseWav(bytes)?.durationMs ?? null;
  if (format === "mp3") return mp3DurationMs(bytes) || null;
  return null;
}

export const MIME: Record<string, string> = {
  wav: "audio/wav",
  mp3: "audio/mpeg",
  opus: "audio/ogg",
  aac: "audio/aac",
  flac: "audio/flac",
  pcm: "audio/wav",
};
