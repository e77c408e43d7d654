/**
 * The voice route: `POST /api/voice/<presetId>` with `{text, emotion_id?, emotion_text?, caption?}` answers
 * the segment's audio (docs/voice.md#the-route). The host resolves the character's engine and adds its key;
 * nothing of the key travels back. Mounted behind the host's loopback guard like every other route.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BodyNotJsonError, BodyTooLargeError, readJsonBody } from "@yui/mod-kit";
import type { Preset } from "../../src/app/presets/preset.ts";
import { getPreset, type KeyValue } from "../../src/app/presets/presets.ts";
import type { Vocabulary } from "../../src/app/vocabulary/vocabulary.ts";
import { type SpeechRequest, VOICE_PREFIX } from "../../src/protocol/voice.ts";
import { sendError } from "../net.ts";
import { MAX_SEGMENT_CHARS, resolveVoice, synthesize, VoiceError } from "./synthesize.ts";

export interface VoiceRouteDeps {
  kv: KeyValue;
  vocabulary(): Vocabulary;
  env?: NodeJS.ProcessEnv;
  /** Tests: another local command (a missing one). */
  localCommand?: string;
}

const MAX_BODY = 64 * 1024;

const str = (v: unknown, max: number) => (typeof v === "string" ? v.slice(0, max) : undefined);

/** Handles the voice route (`url`: the request's); false when it is not under VOICE_PREFIX. */
export function handleVoice(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  deps: VoiceRouteDeps,
): boolean {
  if (!url.pathname.startsWith(VOICE_PREFIX)) return false;
  const m = /^([a-z0-9_-]+)$/.exec(url.pathname.slice(VOICE_PREFIX.length));
  if (!m) {
    sendError(res, 404, "not found");
    return true;
  }
  if (req.method !== "POST") {
    sendError(res, 405, "method not allowed");
    return true;
  }
  const preset: Preset | undefined = getPreset(deps.kv, m[1]!);
  if (!preset) {
    sendError(res, 404, `unknown preset ${m[1]}`);
    return true;
  }
  speak(req, res, deps, preset).catch((e: unknown) => {
    // Anything the segment's path did not expect is this answer's failure, never the host's.
    if (!res.headersSent) sendError(res, 500, (e as Error)?.message ?? String(e));
    else res.destroy();
  });
  return true;
}

/** Reads the segment (the mod kit's capped JSON body), synthesizes it and answers the audio. */
async function speak(req: IncomingMessage, res: ServerResponse, deps: VoiceRouteDeps, preset: Preset) {
  let raw: unknown;
  try {
    raw = await readJsonBody(req, { limit: MAX_BODY });
  } catch (e) {
    if (e instanceof BodyTooLargeError) sendError(res, 413, "segment too large", { connection: "close" });
    else if (e instanceof BodyNotJsonError) sendError(res, 400, "the body is not JSON");
    // BodyAbortedError: the page went away; nobody is left to answer.
    return;
  }
  const body = (raw !== null && typeof raw === "object" ? raw : {}) as Record<string, unknown>;
  const text = str(body.text, MAX_SEGMENT_CHARS + 1);
  if (!text?.trim() || text.length > MAX_SEGMENT_CHARS) {
    sendError(res, 400, `text must be 1-${MAX_SEGMENT_CHARS} characters`);
    return;
  }
  const speech: SpeechRequest = {
    text,
    emotion_id: str(body.emotion_id, 64),
    emotion_text: str(body.emotion_text, 200),
    caption: str(body.caption, 1000),
  };
  const ac = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) ac.abort();
  });
  try {
    const voice = resolveVoice(deps.kv, preset, deps.vocabulary(), deps.env);
    if (deps.localCommand) voice.localCommand = deps.localCommand;
    const out = await synthesize(voice, speech, ac.signal);
    res.writeHead(200, {
      "content-type": out.mime,
      "content-length": out.bytes.length,
      "cache-control": "no-store",
      "x-yui-voice-engine": out.engine,
      "x-yui-voice-format": out.format,
      "x-yui-voice-first-audio-ms": Math.round(out.firstAudioMs),
    });
    res.end(out.bytes);
  } catch (e) {
    if (ac.signal.aborted || res.headersSent) return;
    const status = e instanceof VoiceError ? e.status : 500;
    sendError(res, status, (e as Error).message);
  }
}
