import { describe, expect, it } from "vitest";
import { CLOSED, MOUTH_SHAPES, type MouthShape, mouthFromSpectrum, rms, smoothMouth } from "./lipsync.ts";

const RATE = 48000;
const FFT = 2048;

/** A magnitude spectrum with peaks at the given frequencies (Hz). */
function spectrum(peaks: number[]): Float32Array {
  const s = new Float32Array(FFT / 2);
  const bin = RATE / FFT;
  for (const f of peaks) {
    const c = Math.round(f / bin);
    for (let d = -2; d <= 2; d++) if (s[c + d] !== undefined) s[c + d]! += 1 / (1 + d * d);
  }
  return s;
}
const top = (w: Record<MouthShape, number>) => MOUTH_SHAPES.reduce((a, b) => (w[a] >= w[b] ? a : b));

describe("spectrum to mouth shapes", () => {
  it("picks the vowel whose formants the spectrum shows", () => {
    expect(top(mouthFromSpectrum(spectrum([750, 1250]), RATE, FFT, 0.2))).toBe("aa");
    expect(top(mouthFromSpectrum(spectrum([290, 2350]), RATE, FFT, 0.2))).toBe("ih");
    expect(top(mouthFromSpectrum(spectrum([330, 950]), RATE, FFT, 0.2))).toBe("ou");
    expect(top(mouthFromSpectrum(spectrum([480, 1900]), RATE, FFT, 0.2))).toBe("ee");
    expect(top(mouthFromSpectrum(spectrum([520, 820]), RATE, FFT, 0.2))).toBe("oh");
  });

  it("opens with loudness, and rests shut in silence", () => {
    const spec = spectrum([750, 1250]);
    const sum = (w: Record<string, number>) => Object.values(w).reduce((a, b) => a + b, 0);
    expect(sum(mouthFromSpectrum(spec, RATE, FFT, 0.2))).toBeCloseTo(1, 5);
    expect(sum(mouthFromSpectrum(spec, RATE, FFT, 0.05))).toBeLessThan(0.5);
    expect(sum(mouthFromSpectrum(spec, RATE, FFT, 0.05))).toBeGreaterThan(0.1);
    expect(mouthFromSpectrum(spec, RATE, FFT, 0.005)).toEqual(CLOSED);
    expect(mouthFromSpectrum(spec, RATE, FFT, 0)).toEqual(CLOSED);
  });

  it("falls back to volume (aa) when the spectrum is unclear or absent", () => {
    const hiss = spectrum([4000, 4500]);
    const w = mouthFromSpectrum(hiss, RATE, FFT, 0.1);
    expect(w.aa).toBeGreaterThan(0.3);
    expect(w.ih + w.ou + w.ee + w.oh).toBe(0);
    expect(mouthFromSpectrum(null, RATE, FFT, 0.1).aa).toBe(w.aa);
  });

  it("rms of a sine is its amplitude over root two", () => {
    const s = Float32Array.from({ length: 4800 }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 440 * i) / RATE));
    expect(rms(s)).toBeCloseTo(0.5 / Math.SQRT2, 3);
  });

  it("eases toward the target and settles at exactly zero", () => {
    let w = { ...CLOSED };
    const open = { ...CLOSED, aa: 1 };
    for (let i = 0; i < 10; i++) w = smoothMouth(w, open, 1 / 60);
    expect(w.aa).toBeGreaterThan(0.9);
    for (let i = 0; i < 60; i++) w = smoothMouth(w, CLOSED, 1 / 60);
    expect(w).toEqual(CLOSED);
  });
});
