import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";
import { type Host, startHost } from "../host/server/server.ts";
import { librivox, type Recording, synthesized } from "../host/voice/listen-corpus.ts";
import { floatsToWav, SPEECH_RATE, toSpeechWav, wavSamples } from "../host/voice/pcm16k.ts";
import { LOCAL_LISTEN_COMMAND, localListenArgs } from "../host/voice/transcribe.ts";
import { wer } from "../host/voice/wer.ts";
import { savePreset } from "../src/app/presets/presets.ts";
import { historyKey } from "../src/protocol/history.ts";
import { LISTEN_KEYS, LISTEN_LIMITS } from "../src/protocol/listen.ts";
import type { ListenEvent } from "../src/voice/listen/listening.ts";
import { chunk, type ScriptedBackend, sse, startScriptedBackend } from "../tools/scripted-backend/server.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../tools/testing/chromium.ts";
import { listenOf, probeListen } from "../tools/testing/listen-probe.ts";

// bench:listen — the whole spoken loop as the user feels it, in headless Chromium whose microphone is a WAV
// file: from the end of the user's speech to the transcript, to her reply's first text delta and to her first
// audio (hands-free; the local engines: pocketsphinx through the host, espeak-ng for her voice; the scripted
// backend streaming a token every 25 ms), over the LibriVox clips and flite's phrases; and the interruption:
// from the user starting to speak over her to her audio stopping. Beside it, each local engine's word error
// rate and CPU per second of audio on the same recordings (flite, espeak-ng, LibriVox).
// The end of speech is placed from the audio itself: the page logs the 32 ms frame in which the microphone
// first carried sound (the recording says where that is: the speech's start) and the frame the detector was
// reading when it reported, so each report's place in the recording is known to a frame.
// Run: npx tsx bench/listen.ts [--utterances N (default 15)] [--interruptions N (default 12)] [--no-engines]

const REPO = resolve(import.meta.dirname, "..");
const arg = (name: string, d: number) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? Number(process.argv[i + 1]) : d;
};
/** Utterances through the loop (at most the 15 human and flite recordings) and interruptions. */
const UTTERANCES = arg("--utterances", 15);
const INTERRUPTIONS = arg("--interruptions", 12);
const LEAD_MS = 800;
const FRAME_MS = 32;
const REPLY = ["It", " is", " noon", ".", " Anything", " else", "?"];

const summarize = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return `median ${Math.round(at(0.5))} ms, p90 ${Math.round(at(0.9))} ms, p95 ${Math.round(at(0.95))} ms (n ${s.length})`;
};
const samplesOf = (file: string) => wavSamples(toSpeechWav(readFileSync(file))!.wav)!.samples;
const silence = (ms: number) => new Float32Array(Math.round((ms / 1000) * SPEECH_RATE));
function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
/** Where speech starts and ends in samples (first and last sample above 2% of full scale). */
function speechSpan(s: Float32Array): { start: number; end: number } {
  let start = 0;
  let end = s.length;
  while (start < s.length && Math.abs(s[start]!) < 0.02) start++;
  while (end > start && Math.abs(s[end - 1]!) < 0.02) end--;
  return { start, end };
}

/** Each local engine: pocketsphinx with its default search, and the faster settings it was compared with. */
const LOCAL_ENGINES: { name: string; extra: string[] }[] = [
  { name: "pocketsphinx (default, chosen)", extra: [] },
  {
    name: "pocketsphinx, no second pass (-fwdflat no -bestpath no)",
    extra: ["-fwdflat", "no", "-bestpath", "no"],
  },
  {
    name: "pocketsphinx, fast (-ds 2 -topn 2 -maxhmmpf 3000 -pl_window 10)",
    extra: ["-ds", "2", "-topn", "2", "-maxhmmpf", "3000", "-pl_window", "10"],
  },
];

/** Word error rate and CPU (user + system) per second of audio of one local engine over the recordings. */
function measureEngine(extra: string[], recordings: Recording[]) {
  const bySource: Record<string, { ref: string; hyp: string }[]> = {};
  let cpu = 0;
  let audio = 0;
  for (const r of recordings) {
    const run = spawnSync(
      "/usr/bin/time",
      ["-f", "%U %S", LOCAL_LISTEN_COMMAND, ...localListenArgs(r.file), ...extra],
      {
        encoding: "utf8",
      },
    );
    if (run.status !== 0) throw new Error(`${LOCAL_LISTEN_COMMAND} failed on ${r.file}: ${run.stderr}`);
    const [u, s] = run.stderr.trim().split("\n").at(-1)!.split(" ").map(Number);
    cpu += (u ?? 0) + (s ?? 0);
    audio += samplesOf(r.file).length / SPEECH_RATE;
    const hyp = run.stdout.replace(/\s+/g, " ").trim();
    bySource[r.source] = [...(bySource[r.source] ?? []), { ref: r.ref, hyp }];
  }
  const rates = Object.fromEntries(Object.entries(bySource).map(([k, v]) => [k, wer(v)]));
  return { rates, all: wer(Object.values(bySource).flat()), cpuPerSecond: cpu / audio };
}

type Probe = {
  events: ListenEvent[];
  firstDelta: number | null;
  firstAudio: number | null;
  silenced: number[];
};

/** One utterance through the app: Chromium's microphone plays `wav` once; hands-free is on. */
async function loop(
  host: Host,
  wav: string,
  prepare?: (page: import("playwright-core").Page) => Promise<void>,
) {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      ...CHROMIUM_ARGS,
      "--autoplay-policy=no-user-gesture-required",
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-audio-capture=${wav}%noloop`,
    ],
  });
  try {
    const page = await browser.newPage();
    await probeListen(page);
    await page.goto(host.launchUrl(`${host.url}?view=main&stage=off`));
    await page.waitForFunction(() => document.body.dataset.ready === "true");
    // The page's clock: when her reply's text first shows, when her voice starts and stops.
    await page.evaluate(() => {
      const w = window as unknown as { __probe: Omit<Probe, "events"> };
      w.__probe = { firstDelta: null, firstAudio: null, silenced: [] };
      const panel = document.querySelector("[data-testid=panel-yui]")!;
      const before = panel.querySelectorAll(".msg.assistant").length;
      new MutationObserver(() => {
        const replies = panel.querySelectorAll(".msg.assistant");
        if (
          w.__probe.firstDelta === null &&
          replies.length > before &&
          replies[replies.length - 1]!.textContent
        )
          w.__probe.firstDelta = performance.now();
        const speaking = panel.classList.contains("speaking");
        if (speaking && w.__probe.firstAudio === null) w.__probe.firstAudio = performance.now();
        // Every moment her voice fell silent (the interruption picks the first one after it).
        if (!speaking && w.__probe.firstAudio !== null) w.__probe.silenced.push(performance.now());
      }).observe(panel, {
        subtree: true,
        childList: true,
        characterData: true,
        attributes: true,
        attributeFilter: ["class"],
      });
    });
    await prepare?.(page);
    return { page, browser };
  } catch (e) {
    await browser.close();
    throw e;
  }
}

const probe = async (page: import("playwright-core").Page): Promise<Probe> => ({
  ...(await page.evaluate(() => (window as unknown as { __probe: Omit<Probe, "events"> }).__probe)),
  events: (await listenOf(page, "yui")).timeline,
});

async function waitFor<T>(
  what: string,
  f: () => Promise<T | null | undefined | false>,
  ms = 60_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Each local engine's word error rate and CPU per second of audio on the recordings. */
function reportEngines(recordings: Recording[]): void {
  console.log(
    "[bench:listen] local engines on the same recordings (word error rate; CPU seconds per second of audio):",
  );
  for (const e of LOCAL_ENGINES) {
    const m = measureEngine(e.extra, recordings);
    const per = Object.entries(m.rates)
      .map(([k, v]) => `${k} ${(v.rate * 100).toFixed(1)}%`)
      .join(", ");
    console.log(
      `  ${e.name}: WER ${(m.all.rate * 100).toFixed(1)}% (${per}); CPU ${m.cpuPerSecond.toFixed(2)} s/s`,
    );
  }
}

/**
 * The loop, hands-free, one utterance per page: from the end of speech to the detector's end of utterance, the
 * transcript, her first text delta and her first audio.
 */
async function measureLoop(
  host: Host,
  backend: ScriptedBackend,
  dir: string,
  loopSet: Recording[],
): Promise<void> {
  const rows: { len: number; transcript: number; delta: number; audio: number; detect: number }[] = [];
  let missed = 0;
  for (const r of loopSet) {
    const speech = samplesOf(r.file);
    const span = speechSpan(speech);
    const wav = join(dir, "loop.wav");
    writeFileSync(wav, floatsToWav(concat(silence(LEAD_MS), speech, silence(2500)), SPEECH_RATE));
    const endMs = ((silence(LEAD_MS).length + span.end) / SPEECH_RATE) * 1000;
    const onsetMs = ((silence(LEAD_MS).length + span.start) / SPEECH_RATE) * 1000;
    host.store.set(LISTEN_KEYS.settings, { hands_free: true }, "bench");
    backend.enqueue({
      body: [
        sse(chunk({ role: "assistant", content: "" })),
        ...REPLY.map((t) => sse(chunk({ content: t }))),
        sse(chunk({}, "stop")),
        "data: [DONE]\n\n",
      ],
      chunkDelayMs: 25,
    });
    const { page, browser } = await loop(host, wav);
    try {
      const p = await waitFor("her first audio", async () => {
        const x = await probe(page);
        return x.firstAudio !== null && x.events.some((e) => e.type === "transcript") ? x : null;
      }).catch(async () => {
        // A round that made no turn (the detector dropped the speech as too short, on a loaded machine): say
        // how far it got, and go on with the next.
        const x = await probe(page);
        console.log(`  no turn from ${r.file}: ${JSON.stringify(x.events.map((v) => v.type))}`);
        missed++;
        return null;
      });
      if (!p) continue;
      const sound = p.events.find((e) => e.type === "sound")!;
      const end = p.events.find((e) => e.type === "speech-end")!;
      const transcript = p.events.find((e) => e.type === "transcript")!;
      // The detector reported while reading the recording at `heardMs`; the speech had ended at endMs.
      const heardMs = onsetMs + (end.frame! - sound.frame!) * FRAME_MS;
      const saidAt = end.at - (heardMs - endMs);
      rows.push({
        len: ((span.end - span.start) / SPEECH_RATE) * 1000,
        detect: end.at - saidAt,
        transcript: transcript.at - saidAt,
        delta: p.firstDelta! - saidAt,
        audio: p.firstAudio! - saidAt,
      });
    } finally {
      await browser.close();
      host.store.delete(historyKey("yui"));
    }
  }
  if (missed) console.log(`[bench:listen] ${missed} of ${loopSet.length} utterances made no turn`);
  if (rows.length) {
    const lens = rows.map((r) => r.len);
    console.log(
      `[bench:listen] the loop, hands-free, ${rows.length} utterances of ${Math.round(Math.min(...lens))}-${Math.round(Math.max(...lens))} ms (median ${summarize(lens).split(",")[0]!.replace("median ", "")}); from the end of speech:`,
    );
    console.log(
      `  the detector's end of utterance (${LISTEN_LIMITS.end_silence_ms.default} ms of silence): ${summarize(rows.map((r) => r.detect))}`,
    );
    console.log(`  transcript (pocketsphinx through the host): ${summarize(rows.map((r) => r.transcript))}`);
    console.log(`  her first text delta (scripted backend): ${summarize(rows.map((r) => r.delta))}`);
    console.log(`  her first audio (espeak-ng): ${summarize(rows.map((r) => r.audio))}`);
  }
}

/** Interruption: from the user starting to speak over her to her audio stopping. */
async function measureInterruptions(host: Host, dir: string, phrase: Float32Array): Promise<void> {
  // Interruption: hands-free is on from the start; the user types a message, she speaks a long reply, and
  // the recording has the user start speaking 6 s after the microphone opened.
  const stops: number[] = [];
  const lead = 6000;
  const iwav = join(dir, "interrupt.wav");
  writeFileSync(iwav, floatsToWav(concat(silence(lead), phrase, silence(2500)), SPEECH_RATE));
  const story = Array.from({ length: 30 }, (_, i) => `This is sentence number ${i + 1} of a long story. `);
  let missed = 0;
  for (let i = 0; i < INTERRUPTIONS; i++) {
    host.store.set(LISTEN_KEYS.settings, { hands_free: true }, "bench");
    // A backend of its own each time: nothing queued by an earlier round can answer this one.
    const storyteller = await startScriptedBackend();
    savePreset(host.store, {
      id: "yui",
      name: "YUI",
      avatar: "",
      voice: "",
      persona: "",
      backend: { transport: "chat", base_url: storyteller.url },
    });
    storyteller.enqueue(
      {
        body: [
          sse(chunk({ role: "assistant", content: "" })),
          ...story.map((t) => sse(chunk({ content: t }))),
          sse(chunk({}, "stop")),
          "data: [DONE]\n\n",
        ],
        chunkDelayMs: 400,
      },
      {
        body: [
          sse(chunk({ role: "assistant", content: "Yes?" })),
          sse(chunk({}, "stop")),
          "data: [DONE]\n\n",
        ],
      },
    );
    const { page, browser } = await loop(host, iwav);
    try {
      await page.getByTestId("input").fill("Tell me a story");
      await page.getByTestId("input").press("Enter");
      const p = await waitFor("her audio to stop", async () => {
        const x = await probe(page);
        const cut = x.events.find((e) => e.type === "interrupt");
        return cut && x.silenced.some((t) => t >= cut.at) ? x : null;
      }).catch(async () => {
        // On a loaded machine her reply can end before the user's turn comes: that round measures nothing.
        const m = await page.evaluate(() => [...document.querySelectorAll(".msg")].map((e) => e.textContent));
        console.log(
          `  a round without an interruption (she had said: ${JSON.stringify(m.at(-1)?.slice(0, 60))})`,
        );
        missed++;
        return null;
      });
      if (p) {
        const cut = p.events.find((e) => e.type === "interrupt")!;
        const sound = p.events.find((e) => e.type === "sound")!;
        const start = p.events.find((e) => e.type === "speech-start")!;
        // The user began in the frame of the first sound (up to a frame before it ended); the detector knew
        // it (start.frame - sound.frame) frames later.
        const spokeAt = start.at - (start.frame! - sound.frame! + 1) * FRAME_MS;
        stops.push(p.silenced.find((t) => t >= cut.at)! - spokeAt);
      }
    } finally {
      await browser.close();
      await storyteller.close();
      host.store.delete(historyKey("yui"));
    }
  }
  console.log(
    `[bench:listen] interruption, ${stops.length} times (${missed} rounds without one): from the user starting to speak over her to her audio stopping: ${summarize(stops)}`,
  );
}

async function main() {
  const dir = mkdtempSync(join(tmpdir(), "yui-bench-listen-"));
  const out = join(dir, "dist");
  mkdirSync(join(dir, "wav"));
  const backend = await startScriptedBackend();
  let host: Host | null = null;
  try {
    const recordings = [...synthesized(join(dir, "wav")), ...librivox()];
    console.log(
      `[bench:listen] ${recordings.length} recordings: ${recordings.filter((r) => r.source === "flite").length} flite, ${recordings.filter((r) => r.source === "espeak-ng").length} espeak-ng, ${recordings.filter((r) => r.source === "librivox").length} LibriVox`,
    );
    if (!process.argv.includes("--no-engines")) reportEngines(recordings);

    const { build } = await import("vite");
    await build({
      configFile: join(REPO, "vite.config.ts"),
      logLevel: "warn",
      build: { outDir: out, emptyOutDir: true },
    });
    host = await startHost({
      port: 0,
      dataDir: join(dir, "data"),
      distDir: out,
      env: {},
      browserCommands: false,
    });
    savePreset(host.store, {
      id: "yui",
      name: "YUI",
      avatar: "",
      voice: "",
      persona: "",
      backend: { transport: "chat", base_url: backend.url },
    });

    // The loop: the human and flite recordings (espeak-ng's are not what a user sounds like).
    await measureLoop(
      host,
      backend,
      dir,
      recordings.filter((r) => r.source !== "espeak-ng").slice(0, UTTERANCES),
    );

    await measureInterruptions(host, dir, samplesOf(recordings.find((r) => r.source === "flite")!.file));
  } finally {
    await host?.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
