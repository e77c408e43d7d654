/**
 * A scripted speech server on loopback for tests and benchmarks: answers the OpenAI-compatible
 * `POST /v1/audio/speech` (a WAV, or raw PCM for `response_format: "pcm"`) and ElevenLabs'
 * `POST /v1/text-to-speech/<voice>` (raw 24 kHz PCM) with a tone whose length follows the text, and
 * records every request it was sent (method, path, headers, JSON body).
 */
import { createServer } from "node:http";
import { listenLoopback } from "@yui/mod-kit";
import { pcmToWav } from "./audio.ts";

export interface RecordedSpeechRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export interface SpeechServer {
  /** The OpenAI-compatible base URL (`…/v1`). */
  url: string;
  /** The origin (ElevenLabs base URL). */
  origin: string;
  requests: RecordedSpeechRequest[];
  /** Answers with this status and message instead of audio while set. */
  failWith: { status: number; message: string } | null;
  close(): Promise<void>;
}

/** 16-bit mono PCM of a sine tone. */
export function sinePcm(ms: number, freq = 220, rate = 24000, amplitude = 0.5): Buffer {
  const n = Math.round((ms / 1000) * rate);
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++)
    b.writeInt16LE(Math.round(Math.sin((2 * Math.PI * freq * i) / rate) * amplitude * 32767), i * 2);
  return b;
}

/** Starts the server; `delayMs(body)` holds an answer (to finish syntheses out of order). */
export async function startSpeechServer(
  opts: {
    delayMs?: (body: Record<string, unknown>) => number;
    /** Answers HTTP 500 for the requests it picks. */
    fail?: (body: Record<string, unknown>) => boolean;
  } = {},
): Promise<SpeechServer> {
  const requests: RecordedSpeechRequest[] = [];
  const state: { failWith: SpeechServer["failWith"] } = { failWith: null };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      } catch {}
      requests.push({ method: req.method ?? "", path: req.url ?? "", headers: { ...req.headers }, body });
      const answer = () => {
        if (opts.fail?.(body)) {
          res.writeHead(500, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: "scripted failure" } }));
          return;
        }
        if (state.failWith) {
          res.writeHead(state.failWith.status, { "content-type": "application/json" });
          res.end(JSON.stringify({ error: { message: state.failWith.message } }));
          return;
        }
        const text = String(body.input ?? body.text ?? "");
        const ms = Math.min(4000, 200 + text.length * 40);
        if (req.url === "/v1/audio/speech" && req.method === "POST") {
          const pcm = sinePcm(ms);
          const raw = body.response_format === "pcm";
          res.writeHead(200, { "content-type": raw ? "audio/pcm" : "audio/wav" });
          res.end(raw ? pcm : pcmToWav(pcm, 24000));
          return;
        }
        if (req.url?.startsWith("/v1/text-to-speech/") && req.method === "POST") {
          res.writeHead(200, { "content-type": "application/octet-stream" });
          res.end(sinePcm(ms));
          return;
        }
        res.writeHead(404, { "content-type": "application/json" }).end('{"detail":"Not Found"}');
      };
      const wait = opts.delayMs?.(body) ?? 0;
      if (wait > 0) setTimeout(answer, wait);
      else answer();
    });
  });
  const p = await listenLoopback(server, 0);
  return {
    url: `http://127.0.0.1:${p}/v1`,
    origin: `http://127.0.0.1:${p}`,
    requests,
    get failWith() {
      return state.failWith;
    },
    set failWith(v) {
      state.failWith = v;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
