/**
 * Synthesizes one segment with a character's engine (docs/voice.md): espeak-ng (Linux) or say (macOS) run
 * as a child process with an argument array and the text on stdin (never a shell); the OpenAI-compatible
 * `POST {base}/audio/speech`; ElevenLabs v3 with inline audio tags. Keys are added here, host-side only.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Preset } from "../../src/app/presets/preset.ts";
import type { Vocabulary } from "../../src/app/vocabulary/vocabulary.ts";
import type { SpeechRequest, VoiceEngineId, VoiceSettings } from "../../src/protocol/voice.ts";
import { direct, ENGINE_DEFAULTS } from "../../src/voice/engines.ts";
import { voiceBase, voiceEngineOf, voiceKey, voiceSettingsOf } from "../keys.ts";
import { reasonOf } from "../net.ts";
import { fixWav, MIME, pcmToWav } from "./audio.ts";

/** Longest segment text accepted (the page cuts far shorter segments). */
export const MAX_SEGMENT_CHARS = 2000;
/** ElevenLabs PCM rate asked for (available on every plan) and wrapped as WAV here. */
const ELEVENLABS_PCM_RATE = 24000;
const TIMEOUT_MS = 60_000;

/** A failure in words, with the HTTP status the route answers. */
export class VoiceError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = "VoiceError";
  }
}

export const VOICE_ERRORS = {
  notInstalled: (cmd: string) =>
    cmd === "say"
      ? "The local voice needs macOS's say, which was not found."
      : "The local voice needs espeak-ng, which is not installed: install it (Debian/Ubuntu: sudo apt-get install espeak-ng), or choose another voice engine in settings.",
  unreachable: (url: string, reason: string) =>
    `The speech server at ${url} is not reachable (${reason}). Check that it is running, or change the voice settings.`,
  refused: (url: string, status: number, detail: string) =>
    `The speech server at ${url} answered HTTP ${status}${detail ? `: ${detail}` : ""}.`,
  noVoice: "ElevenLabs needs a voice id: set one in the character's voice settings.",
  failed: (cmd: string, detail: string) => `${cmd} failed${detail ? `: ${detail}` : ""}.`,
  empty: "nothing to say",
} as const;

/** What the engine will be called with: settings resolved, key included (host-side only). */
export interface ResolvedVoice {
  engine: VoiceEngineId;
  settings: VoiceSettings;
  key?: string;
  vocabularyVoice: Vocabulary["voice"];
  platform: NodeJS.Platform;
  /** Override of the local command (tests point it at a missing program). */
  localCommand?: string;
}

/** The minimal store the voice reads. */
export interface VoiceStore {
  get(key: string): unknown;
}

/** Resolves a preset's voice: its settings, else the vocabulary's engine when it names one, else local. */
export function resolveVoice(
  store: VoiceStore,
  preset: Preset,
  vocabulary: Vocabulary,
  env: NodeJS.ProcessEnv = process.env,
): ResolvedVoice {
  const settings = voiceSettingsOf(store, preset.id);
  const engine = voiceEngineOf(settings, vocabulary);
  // The stored key only toward the base it was saved for; OPENAI_API_KEY only to the environment's own base URL,
  // ELEVENLABS_API_KEY only to ElevenLabs' API (host/keys.ts).
  const key = voiceKey(store, preset.id, engine, voiceBase(engine, settings), env);
  return { engine, settings, key, vocabularyVoice: vocabulary.voice, platform: process.platform };
}

/** One synthesized segment. */
export interface Speech {
  engine: VoiceEngineId;
  format: string;
  mime: string;
  bytes: Buffer;
  /** Milliseconds from the call to the first audio byte. */
  firstAudioMs: number;
}

/** Synthesizes `req` with the resolved voice; throws VoiceError in words. */
export async function synthesize(
  v: ResolvedVoice,
  req: SpeechRequest,
  signal?: AbortSignal,
): Promise<Speech> {
  const text = req.text.trim();
  if (!text) throw new VoiceError(VOICE_ERRORS.empty, 400);
  const started = performance.now();
  const d = direct(v.engine, { ...req, text }, v.vocabularyVoice, v.settings.model);
  if (v.engine === "local") return local(v, d.input, d.rate ?? 175, d.pitch ?? 50, started, signal);
  if (v.engine === "openai") {
    const base = (v.settings.base_url ?? ENGINE_DEFAULTS.openai.base_url!).replace(/\/+$/, "");
    const format = v.settings.format ?? "wav";
    const body = {
      model: v.settings.model ?? ENGINE_DEFAULTS.openai.model,
      voice: v.settings.voice ?? ENGINE_DEFAULTS.openai.voice,
      input: d.input,
      response_format: format,
      ...(d.instructions ? { instructions: d.instructions } : {}),
    };
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (v.key) headers.authorization = `Bearer ${v.key}`;
    const r = await post(`${base}/audio/speech`, base, headers, JSON.stringify(body), started, signal);
    // pcm is raw 24 kHz 16-bit mono (OpenAI's documented pcm): wrapped so a page can decode it.
    const bytes = format === "pcm" ? pcmToWav(r.bytes, 24000) : format === "wav" ? fixWav(r.bytes) : r.bytes;
    return {
      engine: "openai",
      format: format === "pcm" ? "wav" : format,
      mime: MIME[format]!,
      bytes,
      firstAudioMs: r.firstMs,
    };
  }
  const voiceId = v.settings.voice;
  if (!voiceId) throw new VoiceError(VOICE_ERRORS.noVoice, 400);
  const base = (v.settings.base_url ?? ENGINE_DEFAULTS.elevenlabs.base_url!).replace(/\/+$/, "");
  const url = `${base}/v1/text-to-speech/${encodeURIComponent(voiceId)}?output_format=pcm_${ELEVENLABS_PCM_RATE}`;
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (v.key) headers["xi-api-key"] = v.key;
  const body = JSON.stringify({
    text: d.input,
    model_id: v.settings.model ?? ENGINE_DEFAULTS.elevenlabs.model,
  });
  const r = await post(url, base, headers, body, started, signal);
  return {
    engine: "elevenlabs",
    format: "wav",
    mime: MIME.wav!,
    bytes: pcmToWav(r.bytes, ELEVENLABS_PCM_RATE),
    firstAudioMs: r.firstMs,
  };
}

function post(
  url: string,
  base: string,
  headers: Record<string, string>,
  body: string,
  started: number,
  signal?: AbortSignal,
): Promise<{ bytes: Buffer; firstMs: number }> {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const send = u.protocol === "https:" ? httpsRequest : httpRequest;
    const req = send(u, { method: "POST", headers, signal, timeout: TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      let firstMs = -1;
      res.on("data", (c: Buffer) => {
        if (firstMs < 0) firstMs = performance.now() - started;
        chunks.push(c);
      });
      res.on("error", (e) => reject(new VoiceError(VOICE_ERRORS.unreachable(base, reasonOf(e)), 502)));
      res.on("end", () => {
        const bytes = Buffer.concat(chunks);
        const status = res.statusCode ?? 502;
        if (status >= 200 && status < 300) return resolve({ bytes, firstMs: Math.max(0, firstMs) });
        reject(new VoiceError(VOICE_ERRORS.refused(base, status, errorDetail(bytes)), 502));
      });
    });
    req.on("timeout", () => req.destroy(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })));
    req.on("error", (e) => reject(new VoiceError(VOICE_ERRORS.unreachable(base, reasonOf(e)), 502)));
    req.end(body);
  });
}

/** The message of a JSON error body (`{error:{message}}`, `{detail:{message}}`), else its first 200 chars. */
function errorDetail(bytes: Buffer): string {
  const text = bytes.toString("utf8").slice(0, 2000);
  try {
    const j = JSON.parse(text) as {
      error?: { message?: string } | string;
      detail?: { message?: string } | string;
    };
    const m =
      (typeof j.error === "string" ? j.error : j.error?.message) ??
      (typeof j.detail === "string" ? j.detail : j.detail?.message);
    if (m) return m.slice(0, 200);
  } catch {}
  return text.replace(/\s+/g, " ").trim().slice(0, 200);
}

/** espeak-ng's voice for a text: by script (kana → ja, Hangul → ko, Han → cmn), else English; female variant. */
export function espeakVoice(text: string): string {
  if (/[\u3040-\u30ff]/.test(text)) return "ja+f3";
  if (/[\uac00-\ud7af]/.test(text)) return "ko+f3";
  if (/[\u4e00-\u9fff]/.test(text)) return "cmn+f3";
  return "en-us+f3";
}

/** Runs espeak-ng (or say) with arguments, the text on stdin; the WAV comes back whole. */
function local(
  v: ResolvedVoice,
  text: string,
  rate: number,
  pitch: number,
  started: number,
  signal?: AbortSignal,
): Promise<Speech> {
  const mac = v.platform === "darwin";
  const cmd = v.localCommand ?? (mac ? "say" : "espeak-ng");
  let dir: string | undefined;
  let args: string[];
  if (mac) {
    // say: text from stdin (-f -), 16-bit WAV to a file; rate only (say has no pitch option).
    dir = mkdtempSync(join(tmpdir(), "yui-say-"));
    args = [
      "-r",
      String(rate),
      "-f",
      "-",
      "-o",
      join(dir, "out.wav"),
      "--file-format=WAVE",
      "--data-format=LEI16@22050",
    ];
    if (v.settings.voice) args.push("-v", v.settings.voice);
  } else {
    args = ["--stdout", "-s", String(rate), "-p", String(pitch), "-v", v.settings.voice || espeakVoice(text)];
  }
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: ["pipe", "pipe", "pipe"], signal });
    const out: Buffer[] = [];
    let err = "";
    let firstMs = -1;
    child.stdout.on("data", (c: Buffer) => {
      if (firstMs < 0) firstMs = performance.now() - started;
      out.push(c);
    });
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString("utf8");
    });
    child.stdin.on("error", () => {});
    child.on("error", (e) => {
      if (dir) rmSync(dir, { recursive: true, force: true });
      if ((e as { code?: string }).code === "ENOENT")
        reject(new VoiceError(VOICE_ERRORS.notInstalled(cmd), 503));
      else reject(new VoiceError(VOICE_ERRORS.failed(cmd, (e as Error).message), 500));
    });
    child.on("close", (code) => {
      if (code !== 0) {
        if (dir) rmSync(dir, { recursive: true, force: true });
        if (!signal?.aborted) reject(new VoiceError(VOICE_ERRORS.failed(cmd, err.trim().slice(0, 200)), 500));
        return;
      }
      let bytes: Buffer;
      if (dir) {
        bytes = readFileSync(join(dir, "out.wav"));
        rmSync(dir, { recursive: true, force: true });
        firstMs = performance.now() - started;
      } else bytes = fixWav(Buffer.concat(out));
      resolve({ engine: "local", format: "wav", mime: MIME.wav!, bytes, firstAudioMs: Math.max(0, firstMs) });
    });
    child.stdin.end(text);
  });
}
