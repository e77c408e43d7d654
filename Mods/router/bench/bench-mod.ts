// The upstream of bench:router, run as its own process: a mod-shaped HTTP server with a JSON
// request/response endpoint and an SSE stream, each event stamped with the time it was written.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

const now = () => performance.timeOrigin + performance.now();
const reply = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  result: { content: [{ type: "text", text: "x".repeat(160) }] },
});

const server = createServer({ noDelay: true, keepAliveTimeout: 60_000 }, (req, res) => {
  const url = new URL(req.url ?? "/", "http://x");
  if (req.method === "POST") {
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(reply) });
      res.end(reply);
    });
    return;
  }
  const n = Number(url.searchParams.get("n") ?? "100");
  const interval = Number(url.searchParams.get("interval") ?? "0");
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  res.flushHeaders();
  let i = 0;
  const pad = "y".repeat(64);
  const event = () => `event: message\ndata: {"i":${i},"t":${now()},"p":"${pad}"}\n\n`;
  if (interval > 0) {
    const timer = setInterval(() => {
      res.write(event());
      if (++i >= n) {
        clearInterval(timer);
        res.end();
      }
    }, interval);
    res.on("close", () => clearInterval(timer));
    return;
  }
  // As fast as the client takes them: write until the socket is full, resume on drain.
  const pump = () => {
    while (i < n) {
      i++;
      if (!res.write(event())) return void res.once("drain", pump);
    }
    res.end();
  };
  pump();
});

server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
});
