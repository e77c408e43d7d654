/**
 * Lip sync from the playing audio (docs/voice.md#lip-sync): the VRM mouth shapes aa, ih, ou, ee, oh from
 * the signal's spectrum (its two strongest peaks taken as the first two formants, compared with each vowel's), opened by loudness;
 * volume alone (aa) when the spectrum says nothing clear; all zero in silence. Pure.
 */

export const MOUTH_SHAPES = ["aa", "ih", "ou", "ee", "oh"] as const;
export type MouthShape = (typeof MOUTH_SHAPES)[number];
export type MouthWeights = Record<MouthShape, number>;

export const CLOSED: MouthWeights = { aa: 0, ih: 0, ou: 0, ee: 0, oh: 0 };

/** RMS below this is silence: the mouth stays shut. */
export const SILENCE_RMS = 0.01;
/** RMS at which the mouth is fully open. */
const FULL_RMS = 0.2;

/** Typical (F1, F2) in Hz per shape (a, i, u, e, o). */
const VOWELS: Record<MouthShape, [number, number]> = {
  aa: [750, 1250],
  ih: [300, 2300],
  ou: [330, 900],
  ee: [480, 1900],
  oh: [500, 850],
};

/** Root-mean-square of time-domain samples (-1..1). */
export function rms(samples: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < samples.length; i++) s += samples[i]! * samples[i]!;
  return samples.length ? Math.sqrt(s / samples.length) : 0;
}

/** The two strongest spectral peaks between 200 and 3000 Hz, at least 250 Hz apart, low first; null if fewer. */
function formants(mags: ArrayLike<number>, binHz: number): [number, number] | null {
  const a = Math.max(1, Math.floor(200 / binHz));
  const b = Math.min(mags.length - 2, Math.ceil(3000 / binHz));
  const peaks: { f: number; m: number }[] = [];
  for (let i = a; i <= b; i++) {
    const m = mags[i]!;
    if (m > 0 && m >= mags[i - 1]! && m > mags[i + 1]!) peaks.push({ f: i * binHz, m });
  }
  peaks.sort((x, y) => y.m - x.m);
  const first = peaks[0];
  if (!first) return null;
  const second = peaks.find((p) => Math.abs(p.f - first.f) >= 250 && p.m >= first.m * 0.1);
  if (!second) return null;
  return first.f < second.f ? [first.f, second.f] : [second.f, first.f];
}

/** Energy of `mags` between lo and hi Hz. */
function energy(mags: ArrayLike<number>, binHz: number, lo: number, hi: number): number {
  let e = 0;
  for (let i = Math.max(1, Math.floor(lo / binHz)); i <= Math.min(mags.length - 1, hi / binHz); i++)
    e += mags[i]!;
  return e;
}

/**
 * Mouth weights from one analysis frame: `spectrum` is linear magnitude per bin (bin width
 * `sampleRate / fftSize`), `level` the frame's RMS. Weights sum to the mouth's openness (0..1).
 */
export function mouthFromSpectrum(
  spectrum: ArrayLike<number> | null,
  sampleRate: number,
  fftSize: number,
  level: number,
): MouthWeights {
  if (!(level > SILENCE_RMS)) return { ...CLOSED };
  const open = Math.min(1, (level - SILENCE_RMS) / (FULL_RMS - SILENCE_RMS)) ** 0.7;
  if (!spectrum) return { ...CLOSED, aa: open };
  const binHz = sampleRate / fftSize;
  const all = energy(spectrum, binHz, 80, 6000);
  const f = all > 0 && energy(spectrum, binHz, 200, 3000) / all >= 0.3 ? formants(spectrum, binHz) : null;
  // Nothing clear in the formant regions (a hum, a hiss, one pure tone): volume alone.
  if (!f) return { ...CLOSED, aa: open };
  const scores = MOUTH_SHAPES.map((k) => {
    const [v1, v2] = VOWELS[k];
    const d = ((f[0] - v1) / 200) ** 2 + ((f[1] - v2) / 500) ** 2;
    return Math.exp(-d);
  });
  const total = scores.reduce((x, y) => x + y, 0);
  if (!(total > 1e-6)) return { ...CLOSED, aa: open };
  const out = { ...CLOSED };
  MOUTH_SHAPES.forEach((k, i) => {
    out[k] = (scores[i]! / total) * open;
  });
  return out;
}

/** Eases weights toward a target: opens fast, closes a little slower (per frame of `dt` seconds). */
export function smoothMouth(current: MouthWeights, target: MouthWeights, dt: number): MouthWeights {
  const out = { ...CLOSED };
  for (const k of MOUTH_SHAPES) {
    const rate = target[k] > current[k] ? 30 : 18;
    const a = 1 - Math.exp(-rate * dt);
    const v = current[k] + (target[k] - current[k]) * a;
    out[k] = v < 0.002 && target[k] === 0 ? 0 : v;
  }
  return out;
}
