import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VOICE_KEYS } from "../../src/protocol/voice.ts";
import { openStore } from "../store/store.ts";
import { parseWav } from "./audio.ts";
import { VOICE_ERRORS } from "./synthesize.ts";
import { type SpeechServer, startSpeechServer } from "./testing.ts";

const YUI = resolve(import.meta.dirname, "../bin/yui.ts");

/** Runs `yui speak` as a real child process. */
function yui(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, ["--import", "tsx", YUI, "speak", ...args], { env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("close", (code) => done({ code: code ?? -1, stdout, stderr }));
  });
}

let dir: string;
let speech: SpeechServer;
const env = () => ({ PATH: process.env.PATH, HOME: dir, YUI_DATA_DIR: dir });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yui-speak-"));
  speech = await startSpeechServer();
});
afterAll(async () => {
  await speech?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("yui speak", () => {
  it("speaks with the local engine on a fresh data directory and prints one JSON line", async () => {
    const out = join(dir, "hello.wav");
    const r = await yui(
      ["--text", "Hello from the command line.", "--emotion", "happy", "--out", out],
      env(),
    );
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split("\n");
    expect(lines).toHaveLength(1);
    const j = JSON.parse(lines[0]!);
    expect(Object.keys(j)).toEqual(["engine", "format", "bytes", "duration_ms", "first_audio_ms"]);
    const bytes = readFileSync(out);
    expect(j).toMatchObject({ engine: "local", format: "wav", bytes: bytes.length });
    expect(j.duration_ms).toBe(Math.round(parseWav(bytes)!.durationMs));
    expect(j.duration_ms).toBeGreaterThan(800);
    expect(j.first_audio_ms).toBeGreaterThanOrEqual(0);
  });

  it("speaks with the character's OpenAI-compatible engine, the caption as instructions", async () => {
    const store = openStore(dir);
    store.set(
      VOICE_KEYS.preset("yui"),
      { enabled: true, engine: "openai", base_url: speech.url, voice: "shimmer", format: "wav" },
      "test",
    );
    store.close();
    const out = join(dir, "openai.wav");
    const r = await yui(
      ["--preset", "yui", "--text", "Good night.", "--caption", "sleepy", "--out", out],
      env(),
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      engine: "openai",
      format: "wav",
      bytes: readFileSync(out).length,
    });
    expect(speech.requests.at(-1)!.body).toMatchObject({
      voice: "shimmer",
      input: "Good night.",
      instructions: "sleepy",
    });
  });

  it("exits 1 with a clear message when the speech server is unreachable", async () => {
    const store = openStore(dir);
    store.set(
      VOICE_KEYS.preset("yui"),
      { enabled: true, engine: "openai", base_url: "http://127.0.0.1:9/v1" },
      "test",
    );
    store.close();
    const r = await yui(["--text", "Anyone there?", "--out", join(dir, "x.wav")], env());
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `yui speak: ${VOICE_ERRORS.unreachable("http://127.0.0.1:9/v1", "connection refused")}\n`,
    );
  });

  it("exits 1 with a clear message when espeak-ng is not installed", async () => {
    const store = openStore(dir);
    store.delete(VOICE_KEYS.preset("yui"));
    store.close();
    const r = await yui(["--text", "Hello.", "--out", join(dir, "y.wav")], {
      ...env(),
      PATH: "/nonexistent",
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`yui speak: ${VOICE_ERRORS.notInstalled("espeak-ng")}\n`);
  });

  it("exits 2 without --out or --text", async () => {
    const r = await yui(["--text", "Hello."], env());
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--out are required");
  });
});
