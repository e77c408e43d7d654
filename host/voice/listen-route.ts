/**
 * The listening route: `POST /api/listen` with a WAV body (the page's utterance, 16 kHz mono 16-bit) answers
 * `{engine, text, audio_ms, transcribe_ms}` (docs/voice.md#listening). The host resolves the device's engine
 * and adds its key; nothing of the key travels back. Mounted behind the host's door like the voice route
 * (host/server/routes.ts).
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { BodyTooLargeError, readBody, sendJson } from "@yui/mod-kit";
import { LISTEN_MAX_BYTES, LISTEN_PATH } from "../../src/protocol/listen.ts";
import { sendError } from "../net.ts";
import { VoiceError } from "./synthesize.ts";
import { resolveListen, transcribe } from "./transcribe.ts";

export interface ListenRouteDeps {
  kv: { get(key: string): unknown };
  env?: NodeJS.ProcessEnv;
  /** Tests: another local program (a missing one). */
  localCommand?: string;
}

/** Handles the listening route; false when the URL is not LISTEN_PATH. */
export function handleListen(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  deps: ListenRouteDeps,
): boolean {
  if (url.pathname !== LISTEN_PATH) return false;
  if (req.method !== "POST") {
    sendError(res, 405, "method not allowed");
    return true;
  }
  void listen(req, res, deps);
  return true;
}

async function listen(req: IncomingMessage, res: ServerResponse, deps: ListenRouteDeps) {
  let body: Buffer;
  try {
    body = await readBody(req, { limit: LISTEN_MAX_BYTES });
  } catch (e) {
    if (e instanceof BodyTooLargeError) sendError(res, 413, "utterance too long", { connection: "close" });
    // BodyAbortedError: the page went away; nobody is left to answer.
    return;
  }
  const ac = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) ac.abort();
  });
  try {
    const v = resolveListen(deps.kv, deps.env);
    if (deps.localCommand) v.localCommand = deps.localCommand;
    sendJson(res, 200, await transcribe(v, body, ac.signal), { "cache-control": "no-store" });
  } catch (e) {
    if (ac.signal.aborted || res.headersSent) return;
    sendError(res, e instanceof VoiceError ? e.status : 500, (e as Error).message);
  }
}
