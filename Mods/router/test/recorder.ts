import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { Gate } from "./test-mod.ts";

/** What the recording upstream saw of one request. */
export interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bytes: number;
}

/** Headers the recorder answers with, to check they come back through the router. */
export const RECORDER_RESPONSE_HEADERS = { "mcp-session-id": "session-from-mod", "x-mod": "recorder" };

/** A raw HTTP upstream for the router tests: records requests and plays gated SSE / upload scenarios. */
export async function startRecorder() {
  const seen: Seen[] = [];
  const sseGate = new Gate();
  const uploadGate = new Gate();
  let sseClosed!: () => void;
  const sseClosedPromise = new Promise<void>((r) => {
    sseClosed = r;
  });

  const server = createServer({ noDelay: true }, (req, res) => {
    const url = new URL(req.url ?? "/", "http://x");
    const record: Seen = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, bytes: 0 };
    seen.push(record);
    const scenario = url.searchParams.get("scenario");

    if (scenario === "sse") {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.flushHeaders();
      res.on("close", () => sseClosed());
      const n = Number(url.searchParams.get("n") ?? "3");
      void (async () => {
        for (let i = 1; i <= n; i++) {
          res.write(`id: ${i}\ndata: {"event":${i}}\n\n`);
          await sseGate.wait(i);
        }
        // hold=1 keeps the stream open, for the disconnect test.
        if (url.searchParams.get("hold") !== "1") res.end();
      })();
      return;
    }

    if (scenario === "big") {
      // A large answer written as fast as the router takes it: the drain events show its backpressure.
      let left = Number(url.searchParams.get("bytes"));
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      res.writeHead(200, { "content-type": "application/octet-stream" });
      const pump = () => {
        while (left > 0) {
          const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
          left -= part.length;
          if (!res.write(part)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
      return;
    }

    let firstChunk = true;
    req.on("data", (c: Buffer) => {
      record.bytes += c.length;
      if (firstChunk && scenario === "upload") uploadGate.open(1);
      firstChunk = false;
    });
    req.on("end", () => {
      const body = JSON.stringify(record);
      res.writeHead(url.searchParams.get("status") ? Number(url.searchParams.get("status")) : 200, {
        "content-type": "application/json",
        ...RECORDER_RESPONSE_HEADERS,
      });
      res.end(body);
    });
  });
  let connections = 0;
  server.on("connection", () => connections++);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    sseGate,
    uploadGate,
    sseClosed: sseClosedPromise,
    /** TCP connections accepted so far (to see the router reuse them). */
    connections: () => connections,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
