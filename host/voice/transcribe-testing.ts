/**
 * A scripted transcription server on loopback for tests and benchmarks: answers the OpenAI-compatible
 * `POST /v1/audio/transcriptions` (multipart, parsed by the platform's own FormData) with a scripted text, and
 * records each request: its headers and its fields (the file's name, type and bytes; model; language).
 */
import { createServer } from "node:http";
import { listenLoopback } from "@yui/mod-kit";

export interface RecordedTranscription {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Text fields (model, language, response_format). */
  fields: Record<string, string>;
  file: { name: string; type: string; bytes: Buffer } | null;
}

export interface TranscriptionServer {
  /** The OpenAI-compatible base URL (`…/v1`). */
  url: string;
  requests: RecordedTranscription[];
  /** The text the next answers carry. */
  text: string;
  /** Answers with this status and message instead while set. */
  failWith: { status: number; message: string } | null;
  close(): Promise<void>;
}

/** Starts the server on 127.0.0.1. */
export async function startTranscriptionServer(text = "hello there"): Promise<TranscriptionServer> {
  const state: Pick<TranscriptionServer, "text" | "failWith" | "requests"> = {
    text,
    failWith: null,
    requests: [],
  };
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    if (req.method !== "POST" || req.url !== "/v1/audio/transcriptions") {
      res.writeHead(404, { "content-type": "application/json" }).end('{"detail":"Not Found"}');
      return;
    }
    const fields: Record<string, string> = {};
    let file: RecordedTranscription["file"] = null;
    try {
      const form = await new Request("http://127.0.0.1/", {
        method: "POST",
        headers: { "content-type": String(req.headers["content-type"] ?? "") },
        body,
      }).formData();
      for (const [k, v] of form.entries()) {
        if (typeof v === "string") fields[k] = v;
        else file = { name: v.name, type: v.type, bytes: Buffer.from(await v.arrayBuffer()) };
      }
    } catch {}
    state.requests.push({ path: req.url, headers: { ...req.headers }, fields, file });
    if (state.failWith) {
      res.writeHead(state.failWith.status, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: state.failWith.message } }));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ text: state.text }));
  });
  const port = await listenLoopback(server, 0);
  return {
    url: `http://127.0.0.1:${port}/v1`,
    get requests() {
      return state.requests;
    },
    get text() {
      return state.text;
    },
    set text(v) {
      state.text = v;
    },
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
