import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Host, startHost } from "../host/server/server.ts";
import { startSpeechServer } from "../host/voice/testing.ts";
import { savePreset } from "../src/app/presets/presets.ts";
import { VOICE_KEYS } from "../src/protocol/voice.ts";
import { startVoiceHarness } from "../src/voice/harness/serve.ts";
import { chunk, sse, startScriptedBackend } from "../tools/scripted-backend/server.ts";

// bench:voice — time to first audio, the number users feel: from the first text delta of a reply to the
// moment its first sentence starts playing (Web Audio, headless Chromium), with the local engine
// (espeak-ng through the host) and with the OpenAI-compatible engine against a scripted speech server on
// loopback (it answers at once: the number is YUI's own overhead, not a model's synthesis time). Beside it,
// in the same run and the same page, the time from the request to the first text delta.
// Run: npx tsx bench/voice.ts [--rounds N]

const argRounds = process.argv.indexOf("--rounds");
const ROUNDS = argRounds > 0 ? Number(process.argv[argRounds + 1]) : 12;

/** A reply streamed like a model: a token every 25 ms. */
const REPLY = [
  "Hi",
  " there",
  "!",
  " It's",
  " lovely",
  " to",
  " see",
  " you",
  " again",
  ".",
  " How",
  " was",
  " your",
  " day",
  "?",
];

const summarize = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  return { median: at(0.5), p95: at(0.95) };
};

async function main() {
  if (!Number.isInteger(ROUNDS) || ROUNDS < 3) throw new Error("--rounds needs an integer of at least 3");
  const dir = mkdtempSync(join(tmpdir(), "yui-bench-voice-"));
  const backend = await startScriptedBackend();
  const speech = await startSpeechServer();
  let host: Host | null = null;
  let harness: Awaited<ReturnType<typeof startVoiceHarness>> | null = null;
  try {
    host = await startHost({ port: 0, dataDir: dir, env: {}, browserCommands: false });
    for (const id of ["local", "openai"]) {
      savePreset(host.store, {
        id,
        name: id,
        avatar: "",
        voice: "",
        persona: "",
        backend: { transport: "chat", base_url: backend.url },
      });
    }
    host.store.set(
      VOICE_KEYS.preset("openai"),
      { enabled: true, engine: "openai", base_url: speech.url },
      "bench",
    );
    harness = await startVoiceHarness(host);
    const body = [
      sse(chunk({ role: "assistant", content: "" })),
      ...REPLY.map((t) => sse(chunk({ content: t }))),
      sse(chunk({}, "stop"), "[DONE]"),
    ];
    const rows: Record<string, { text: number[]; audio: number[] }> = {
      "local (espeak-ng)": { text: [], audio: [] },
      "OpenAI-compatible (scripted server)": { text: [], audio: [] },
    };
    for (let r = 0; r < ROUNDS + 1; r++) {
      // Alternate the engines; the first round warms both up and is not counted.
      for (const [label, id] of [
        ["local (espeak-ng)", "local"],
        ["OpenAI-compatible (scripted server)", "openai"],
      ] as const) {
        backend.enqueue({ body, chunkDelayMs: 25 });
        const m = await harness.page.evaluate((p) => window.voice.reply(p), id);
        if (r > 0) {
          rows[label]!.text.push(m.firstTextMs);
          rows[label]!.audio.push(m.firstAudioMs);
        }
      }
    }
    console.log(`bench:voice — ${ROUNDS} replies per engine, alternating, headless Chromium, 2-core machine`);
    console.log(
      "engine                                 first text delta (from request)   first audio (from first delta)",
    );
    for (const [label, v] of Object.entries(rows)) {
      const t = summarize(v.text);
      const a = summarize(v.audio);
      console.log(
        `${label.padEnd(38)} median ${t.median.toFixed(1).padStart(6)} ms  p95 ${t.p95.toFixed(1).padStart(6)} ms    median ${a.median.toFixed(1).padStart(6)} ms  p95 ${a.p95.toFixed(1).padStart(6)} ms`,
      );
    }
  } finally {
    await harness?.close();
    await host?.close();
    await speech.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
