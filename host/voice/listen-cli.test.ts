import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LISTEN_KEYS, TranscriptSchema } from "../../src/protocol/listen.ts";
import { openStore } from "../store/store.ts";
import { librivox, type Recording, synthesized } from "./listen-corpus.ts";
import { LISTEN_ERRORS } from "./transcribe.ts";
import { startTranscriptionServer, type TranscriptionServer } from "./transcribe-testing.ts";
import { wer } from "./wer.ts";

const YUI = resolve(import.meta.dirname, "../bin/yui.ts");

/** Runs `yui listen` as a real child process. */
function yui(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--import", "tsx", YUI, "listen", ...args], { env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

let dir: string;
let corpus: Recording[];
let server: TranscriptionServer;
const env = (extra: NodeJS.ProcessEnv = {}) => ({
  PATH: process.env.PATH,
  HOME: dir,
  YUI_DATA_DIR: dir,
  ...extra,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yui-listen-"));
  mkdirSync(join(dir, "wav"));
  corpus = [...librivox(), ...synthesized(join(dir, "wav"))];
  server = await startTranscriptionServer("What time is it?");
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * The bounds each source's word error rate is held under with the local default (pocketsphinx with its US
 * English model). Measured here: LibriVox 37%, flite 12%, espeak-ng 65% (docs/benchmarks.md); the bounds
 * leave a few words of room. espeak-ng's formant voice is far from the human speech the model learned.
 */
const WER_BOUNDS = { librivox: 0.45, flite: 0.2, "espeak-ng": 0.8 } as const;

describe("yui listen", () => {
  it("turns real speech into text with the local default, under each source's word error rate bound", async () => {
    const results: Record<string, { ref: string; hyp: string }[]> = {};
    for (const r of corpus) {
      const out = await yui(["--in", r.file], env());
      expect(out.stderr).toBe("");
      expect(out.code).toBe(0);
      expect(out.stdout.trim().split("\n")).toHaveLength(1);
      const t = TranscriptSchema.parse(JSON.parse(out.stdout));
      expect(t.engine).toBe("local");
      expect(t.audio_ms).toBeGreaterThan(800);
      results[r.source] = [...(results[r.source] ?? []), { ref: r.ref, hyp: t.text }];
    }
    const rates: Record<string, number> = {};
    for (const [source, pairs] of Object.entries(results)) {
      const w = wer(pairs);
      rates[source] = w.rate;
      console.log(`[listen] ${source}: WER ${(w.rate * 100).toFixed(1)}% (${w.edits}/${w.words} words)`);
    }
    expect(Object.keys(rates).sort()).toEqual(["espeak-ng", "flite", "librivox"]);
    for (const [source, bound] of Object.entries(WER_BOUNDS))
      expect(rates[source], source).toBeLessThan(bound);
  }, 600_000);

  it("says the local engine is missing, exit 1, when pocketsphinx is not on the PATH", async () => {
    const empty = join(dir, "empty-bin");
    mkdirSync(empty, { recursive: true });
    const out = await yui(["--in", corpus[0]!.file], env({ PATH: empty }));
    expect(out.code).toBe(1);
    expect(out.stdout).toBe("");
    expect(out.stderr).toBe(`yui listen: ${LISTEN_ERRORS.notInstalled}\n`);
  });

  it("uses the OpenAI-compatible engine with --engine openai, and says when its server is unreachable", async () => {
    const store = openStore(dir);
    store.set(LISTEN_KEYS.settings, { hands_free: false, base_url: server.url, language: "en" }, "user");
    store.set(LISTEN_KEYS.apiKey, "sk-listen-test", "user");
    store.close();
    const out = await yui(["--in", corpus[0]!.file, "--engine", "openai"], env());
    expect(out.stderr).toBe("");
    expect(JSON.parse(out.stdout)).toMatchObject({ engine: "openai", text: "What time is it?" });
    const req = server.requests.at(-1)!;
    expect(req.fields).toEqual({ model: "whisper-1", language: "en", response_format: "json" });
    expect(req.headers.authorization).toBe("Bearer sk-listen-test");
    // The 16 kHz clip went up as it was.
    expect(req.file?.bytes.subarray(44).equals(readFileSync(corpus[0]!.file).subarray(44))).toBe(true);

    const gone = await startTranscriptionServer();
    await gone.close();
    const s2 = openStore(dir);
    s2.set(LISTEN_KEYS.settings, { hands_free: false, engine: "openai", base_url: gone.url }, "user");
    s2.close();
    const down = await yui(["--in", corpus[0]!.file], env());
    expect(down.code).toBe(1);
    expect(down.stderr).toBe(`yui listen: ${LISTEN_ERRORS.unreachable(gone.url, "connection refused")}\n`);
  });

  it("exits 2 for bad options and 1 for a file that is not a WAV", async () => {
    expect((await yui([], env())).code).toBe(2);
    expect((await yui(["--in", corpus[0]!.file, "--engine", "nope"], env())).code).toBe(2);
    const junk = join(dir, "junk.wav");
    writeFileSync(junk, "not audio");
    const r = await yui(["--in", junk, "--engine", "local"], env());
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`yui listen: ${LISTEN_ERRORS.notWav}\n`);
  });
});
