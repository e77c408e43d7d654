/**
 * Turns one utterance (a WAV) into text with the device's listening engine (docs/voice.md#listening): the
 * local engine runs pocketsphinx as a child process (an argument array, the audio on stdin, never a shell);
 * the OpenAI-compatible engine posts `{base}/audio/transcriptions` as multipart. Keys are added here,
 * host-side only, and only for the base URL they belong to.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  DEFAULT_LISTEN_SETTINGS,
  LISTEN_KEYS,
  type ListenEngineId,
  type ListenSettings,
  ListenSettingsSchema,
  listenBase,
  TRANSCRIBE_DEFAULTS,
  type Transcript,
} from "../../src/protocol/listen.ts";
import { listenKey } from "../keys.ts";
import { reasonOf } from "../net.ts";
import { toSpeechWav } from "./pcm16k.ts";
import { VoiceError } from "./synthesize.ts";

/** The OpenAI-compatible engine's defaults (the contract's). */
export { TRANSCRIBE_DEFAULTS };
/** The local engine's program (Debian: pocketsphinx, with its US English model pocketsphinx-en-us). */
export const LOCAL_LISTEN_COMMAND = "pocketsphinx_continuous";
/** Its arguments for one WAV file: the default model and search (bench:listen measures the alternatives). */
export const localListenArgs = (file: string): string[] => ["-infile", file, "-logfn", "/dev/null"];
const TIMEOUT_MS = 60_000;

export const LISTEN_ERRORS = {
  notInstalled:
    "Listening with the local engine needs pocketsphinx, which is not installed: install it (Debian/Ubuntu: sudo apt-get install pocketsphinx pocketsphinx-en-us), or choose another listening engine in settings.",
  englishOnly: (lang: string) =>
    `The local listening engine knows English only, not ${lang}: choose the OpenAI-compatible engine in the listening settings.`,
  notWav: "The audio is not a PCM WAV file.",
  unreachable: (url: string, reason: string) =>
    `The transcription server at ${url} is not reachable (${reason}). Check that it is running, or change the listening settings.`,
  refused: (url: string, status: number, detail: string) =>
    `The transcription server at ${url} answered HTTP ${status}${detail ? `: ${detail}` : ""}.`,
  badAnswer: (url: string) => `The transcription server at ${url} answered without a text.`,
  failed: (detail: string) => `pocketsphinx failed${detail ? `: ${detail}` : ""}.`,
} as const;

/** What the engine will be called with: settings resolved, key included (host-side only). */
export interface ResolvedListen {
  engine: ListenEngineId;
  settings: ListenSettings;
  key?: string;
  /** Override of the local program (tests point it at a missing one). */
  localCommand?: string;
}

/** The device's listening settings (the default while unset or unreadable). */
export function listenSettings(store: { get(key: string): unknown }): ListenSettings {
  const r = ListenSettingsSchema.safeParse(store.get(LISTEN_KEYS.settings));
  return r.success ? r.data : DEFAULT_LISTEN_SETTINGS;
}

/**
 * Resolves the engine and its key (host/keys.ts): the stored key only toward the base it was saved for, else
 * OPENAI_API_KEY toward the environment's own base only.
 */
export function resolveListen(
  store: { get(key: string): unknown },
  env: NodeJS.ProcessEnv = process.env,
  engine?: ListenEngineId,
): ResolvedListen {
  const settings = listenSettings(store);
  const chosen = engine ?? settings.engine ?? "local";
  const base = listenBase({ ...settings, engine: chosen });
  return { engine: chosen, settings, key: listenKey(store, base, env) };
}

/** Transcribes a WAV with the resolved engine; throws VoiceError in words. */
export async function transcribe(v: ResolvedListen, wav: Buffer, signal?: AbortSignal): Promise<Transcript> {
  const speech = toSpeechWav(wav);
  if (!speech) throw new VoiceError(LISTEN_ERRORS.notWav, 400);
  const started = performance.now();
  const text =
    v.engine === "local" ? await local(v, speech.wav, signal) : await openai(v, speech.wav, signal);
  return {
    engine: v.engine,
    text: text.replace(/\s+/g, " ").trim(),
    audio_ms: Math.round(speech.ms),
    transcribe_ms: Math.round(performance.now() - started),
  };
}

/**
 * pocketsphinx with its US English model: the 16 kHz WAV from a private temporary file (it opens the file by
 * name, and Node's stdin pipe is a socket that /dev/stdin cannot open), one line per stretch of speech out.
 */
function local(v: ResolvedListen, wav: Buffer, signal?: AbortSignal): Promise<string> {
  const lang = v.settings.language;
  if (lang && !/^en\b/.test(lang))
    return Promise.reject(new VoiceError(LISTEN_ERRORS.englishOnly(lang), 400));
  const cmd = v.localCommand ?? LOCAL_LISTEN_COMMAND;
  const dir = mkdtempSync(join(tmpdir(), "yui-listen-"));
  const file = join(dir, "utterance.wav");
  writeFileSync(file, wav, { mode: 0o600 });
  const done = () => rmSync(dir, { recursive: true, force: true });
  return new Promise<string>((resolve, reject) => {
    const child = spawn(cmd, localListenArgs(file), {
      stdio: ["ignore", "pipe", "pipe"],
      signal,
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString("utf8");
    });
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString("utf8");
    });
    child.on("error", (e) => {
      if ((e as { code?: string }).code === "ENOENT") reject(new VoiceError(LISTEN_ERRORS.notInstalled, 503));
      else reject(new VoiceError(LISTEN_ERRORS.failed((e as Error).message), 500));
    });
    child.on("close", (code) => {
      if (code === 0) return resolve(out);
      if (!signal?.aborted) reject(new VoiceError(LISTEN_ERRORS.failed(err.trim().slice(0, 200)), 500));
    });
  }).finally(done);
}

/** `POST {base}/audio/transcriptions` (multipart: file, model, language?, response_format json). */
async function openai(v: ResolvedListen, wav: Buffer, signal?: AbortSignal): Promise<string> {
  const base = listenBase({ ...v.settings, engine: "openai" })!;
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(wav)], { type: "audio/wav" }), "speech.wav");
  form.append("model", v.settings.model ?? TRANSCRIBE_DEFAULTS.model);
  if (v.settings.language) form.append("language", v.settings.language.slice(0, 2));
  form.append("response_format", "json");
  const headers: Record<string, string> = {};
  if (v.key) headers.authorization = `Bearer ${v.key}`;
  const timeout = AbortSignal.timeout(TIMEOUT_MS);
  let res: Response;
  try {
    res = await fetch(`${base}/audio/transcriptions`, {
      method: "POST",
      headers,
      body: form,
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
  } catch (e) {
    const cause = (e as { cause?: unknown }).cause ?? e;
    throw new VoiceError(LISTEN_ERRORS.unreachable(base, reasonOf(cause)), 502);
  }
  const body = await res.text().catch(() => "");
  if (!res.ok) throw new VoiceError(LISTEN_ERRORS.refused(base, res.status, errorDetail(body)), 502);
  try {
    const j = JSON.parse(body) as { text?: unknown };
    if (typeof j.text === "string") return j.text;
  } catch {
    // A server answering plain text despite response_format json: take the text as it is.
    if (body.trim() && !body.trim().startsWith("<")) return body;
  }
  throw new VoiceError(LISTEN_ERRORS.badAnswer(base), 502);
}

/** The message of a JSON error body, else its first 200 characters. */
function errorDetail(text: string): string {
  try {
    const j = JSON.parse(text) as { error?: { message?: string } | string; detail?: unknown };
    const m = typeof j.error === "string" ? j.error : j.error?.message;
    if (m) return m.slice(0, 200);
    if (typeof j.detail === "string") return j.detail.slice(0, 200);
  } catch {}
  return text.replace(/\s+/g, " ").trim().slice(0, 200);
}
