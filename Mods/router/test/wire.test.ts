import { once } from "node:events";
import { request } from "node:http";
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTER_ERRORS, type RunningRouter, startRouter } from "../src/router.ts";
import type { Upstream } from "../src/upstreams.ts";
import { type Seen, startRecorder } from "./recorder.ts";

// The router's HTTP/1.1 on the wire: exact bytes in, exact bytes out, over raw TCP sockets (node:http
// would normalize what these tests need to send and see).

/** A TCP connection to the router that collects everything it answers. */
class Wire {
  readonly sock: Socket;
  text = "";
  private waiters: (() => void)[] = [];
  readonly closed: Promise<void>;
  constructor(port: number) {
    this.sock = connect({ host: "127.0.0.1", port });
    this.sock.setEncoding("latin1");
    this.sock.on("data", (c: string) => {
      this.text += c;
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = once(this.sock, "close").then(() => {
      for (const w of this.waiters.splice(0)) w();
    });
  }
  send(bytes: string): this {
    this.sock.write(Buffer.from(bytes, "latin1"));
    return this;
  }
  /** Resolves once the answer so far satisfies `done` (rejects if the connection closes first). */
  async until(done: (text: string) => boolean): Promise<string> {
    while (!done(this.text)) {
      if (this.sock.destroyed) throw new Error(`closed with: ${JSON.stringify(this.text)}`);
      await new Promise<void>((r) => this.waiters.push(r));
    }
    return this.text;
  }
  /** Everything, once the router has closed the connection. */
  async all(): Promise<string> {
    await this.closed;
    return this.text;
  }
}

/** How many times s occurs in text. */
const count = (text: string, s: string) => text.split(s).length - 1;
const statusOf = (text: string) => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1]);
const bodyOf = (text: string) => text.slice(text.indexOf("\r\n\r\n") + 4);

/** An upstream that answers each request head with scripted bytes, then closes if told to. */
async function scripted(answer: { write: string; end?: boolean }): Promise<Server> {
  const server = createServer((s) => {
    let got = "";
    s.setEncoding("latin1");
    s.on("data", (c: string) => {
      got += c;
      if (!got.includes("\r\n\r\n")) return;
      got = "";
      s.write(Buffer.from(answer.write, "latin1"));
      if (answer.end) s.end();
    });
    s.on("error", () => {});
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return server;
}
const portOf = (s: Server) => (s.address() as AddressInfo).port;

let recorder: Awaited<ReturnType<typeof startRecorder>>;
let router: RunningRouter;
let garbage: Server;
let truncating: Server;
let untilClose: Server;
let upstreams: Record<string, Upstream>;

beforeAll(async () => {
  recorder = await startRecorder();
  garbage = await scripted({
    write: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc",
  });
  truncating = await scripted({
    write: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n9\r\nonly this\r\n",
    end: true,
  });
  untilClose = await scripted({
    write: "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nthe whole body",
    end: true,
  });
  upstreams = {
    raw: { mod: "recorder", port: recorder.port },
    garbage: { mod: "garbage", port: portOf(garbage) },
    truncating: { mod: "truncating", port: portOf(truncating) },
    close: { mod: "close", port: portOf(untilClose) },
  };
  router = await startRouter({ port: 0, upstreams });
});
afterAll(async () => {
  await router?.close();
  await recorder?.close();
  for (const s of [garbage, truncating, untilClose]) s?.close();
});

const POST = (path: string, body: string, extra = "") =>
  `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body, "latin1")}\r\n\r\n${body}`;
const lastSeen = (): Seen => recorder.seen.at(-1)!;

describe("keep-alive and pipelining", () => {
  it("answers two pipelined requests on one connection in order, over one mod connection", async () => {
    const before = recorder.connections();
    const w = new Wire(router.port).send(POST("/raw/mcp?n=1", "{}") + POST("/raw/mcp?n=2", "{}"));
    const text = await w.until((t) => count(t, '"url":"/mcp?n=') === 2);
    expect([...text.matchAll(/"url":"\/mcp\?n=(\d)"/g)].map((m) => m[1])).toEqual(["1", "2"]);
    expect(count(text, "HTTP/1.1 200 OK\r\n")).toBe(2);
    expect(recorder.connections() - before).toBe(1);
    w.sock.destroy();
  });

  it("answers a client that half-closes right after its requests (FIN), then closes", async () => {
    const w = new Wire(router.port).send(POST("/raw/mcp?half=1", "{}") + POST("/raw/mcp?half=2", "{}"));
    w.sock.end();
    const text = await w.all();
    expect(count(text, "HTTP/1.1 200 OK\r\n")).toBe(2);
    expect(text).toContain('"url":"/mcp?half=2"');
  });

  it("closes after the answer when the client says Connection: close", async () => {
    const w = new Wire(router.port).send(POST("/raw/mcp", "{}", "Connection: close\r\n"));
    const text = await w.all();
    expect(statusOf(text)).toBe(200);
    expect(text).toContain("\r\nConnection: close\r\n");
  });
});

describe("request bodies", () => {
  it("passes a chunked request body through whole, chunk framing intact", async () => {
    const w = new Wire(router.port).send(
      "POST /raw/mcp HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n",
    );
    await w.until((t) => t.includes('"bytes":11'));
    expect(lastSeen().headers["transfer-encoding"]).toBe("chunked");
    w.sock.destroy();
  });

  it("passes Expect: 100-continue through: the client sends its body after the mod's 100", async () => {
    const w = new Wire(router.port).send(
      "POST /raw/mcp HTTP/1.1\r\nHost: localhost\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n",
    );
    await w.until((t) => t.startsWith("HTTP/1.1 100 Continue\r\n\r\n"));
    w.send("{}");
    await w.until((t) => t.includes('"bytes":2'));
    w.sock.destroy();
  });
});

describe("refusals on the wire", () => {
  it.each([
    [
      "a malformed header line",
      "GET /raw/mcp HTTP/1.1\r\nHost localhost\r\n\r\n",
      400,
      "malformed header line",
    ],
    [
      "Content-Length beside Transfer-Encoding",
      "POST /raw/mcp HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      400,
      "both Transfer-Encoding and Content-Length",
    ],
    [
      "a transfer coding it cannot pass on",
      "POST /raw/mcp HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: gzip\r\n\r\n",
      501,
      "unsupported Transfer-Encoding",
    ],
    [
      "two Host headers",
      "GET /raw/mcp HTTP/1.1\r\nHost: localhost\r\nHost: evil.example\r\n\r\n",
      400,
      "more than one 'Host' header",
    ],
  ])("answers %s with its status, closes, and never contacts the mod", async (_l, bytes, status, why) => {
    const before = recorder.seen.length;
    const text = await new Wire(router.port).send(bytes).all();
    expect(statusOf(text)).toBe(status);
    expect(JSON.parse(bodyOf(text)).error.message).toBe(ROUTER_ERRORS.badRequest(why).message);
    expect(recorder.seen.length).toBe(before);
  });

  it("answers 431 to a head larger than 16 KiB", async () => {
    const text = await new Wire(router.port)
      .send(`GET /raw/mcp HTTP/1.1\r\nHost: localhost\r\nX-Big: ${"a".repeat(17 * 1024)}`)
      .all();
    expect(statusOf(text)).toBe(ROUTER_ERRORS.headTooLarge.status);
    expect(JSON.parse(bodyOf(text)).error.message).toBe(ROUTER_ERRORS.headTooLarge.message);
  });

  it("answers 400 and aborts the mod's request when the client half-closes in the middle of a body", async () => {
    const w = new Wire(router.port).send(
      POST("/raw/mcp?cut=1", "{}").replace("Content-Length: 2", "Content-Length: 9"),
    );
    w.sock.end();
    const text = await w.all();
    expect(statusOf(text)).toBe(400);
    expect(JSON.parse(bodyOf(text)).error.message).toBe(
      ROUTER_ERRORS.badRequest("the request ended before its body").message,
    );
  });
});

describe("what the mod answers", () => {
  it("answers 502 to a malformed mod response, naming the mod", async () => {
    const text = await new Wire(router.port).send(POST("/garbage/mcp", "{}")).all();
    expect(statusOf(text)).toBe(502);
    expect(JSON.parse(bodyOf(text)).error.message).toBe(
      ROUTER_ERRORS.badUpstream("garbage", upstreams.garbage!).message,
    );
  });

  it("drops the client's connection when the mod's chunked body ends short, rather than end it as complete", async () => {
    const text = await new Wire(router.port).send(POST("/truncating/mcp", "{}")).all();
    expect(text.endsWith("\r\n\r\n9\r\nonly this\r\n")).toBe(true);
  });

  it("passes on a body that runs until the mod closes, and closes the client's connection after it", async () => {
    const text = await new Wire(router.port).send(POST("/close/mcp", "{}")).all();
    expect(statusOf(text)).toBe(200);
    expect(text).toContain("\r\nConnection: close\r\n");
    expect(bodyOf(text)).toBe("the whole body");
  });

  it("decodes a chunked SSE stream for an HTTP/1.0 client and ends it by closing", async () => {
    const w = new Wire(router.port).send("GET /raw/mcp?scenario=sse&n=2 HTTP/1.0\r\nHost: localhost\r\n\r\n");
    await w.until((t) => t.includes('{"event":1}'));
    recorder.sseGate.open(1);
    await w.until((t) => t.includes('{"event":2}'));
    recorder.sseGate.open(2);
    const text = await w.all();
    expect(text).not.toContain("Transfer-Encoding");
    expect(bodyOf(text)).toBe('id: 1\ndata: {"event":1}\n\nid: 2\ndata: {"event":2}\n\n');
  });

  it("passes a 32 MiB answer whole to a client that stops reading for a while (backpressure, no loss)", async () => {
    const size = 32 * 1024 * 1024;
    const got = await new Promise<number>((resolve, reject) => {
      const req = request(`${router.url}/raw/mcp?scenario=big&bytes=${size}`);
      req.on("response", (res) => {
        let n = 0;
        res.on("data", (c: Buffer) => {
          n += c.length;
        });
        res.pause();
        setTimeout(() => res.resume(), 300);
        res.on("end", () => resolve(n));
      });
      req.on("error", reject);
      req.end();
    });
    expect(got).toBe(size);
  });

  it("answers HEAD with the mod's head and no body, and keeps the connection", async () => {
    const w = new Wire(router.port).send("HEAD /raw/mcp HTTP/1.1\r\nHost: localhost\r\n\r\n");
    await w.until((t) => t.includes("\r\n\r\n"));
    w.send(POST("/raw/mcp?after=head", "{}"));
    const text = await w.until((t) => t.includes('"url":"/mcp?after=head"'));
    expect(text.startsWith("HTTP/1.1 200 OK\r\n")).toBe(true);
    expect(count(text, "HTTP/1.1 200 OK\r\n")).toBe(2);
    w.sock.destroy();
  });
});
