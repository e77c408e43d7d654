// The one body reader of every listener, over a real node:http server on loopback.
import { once } from "node:events";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BodyAbortedError,
  BodyNotJsonError,
  BodyTooLargeError,
  readBody,
  readJsonBody,
  sendJson,
  sendJsonError,
} from "./http-body.ts";

const LIMIT = 64 * 1024;

/** What the server saw of the last request: the value read, or the error's class name. */
let seen: Promise<unknown>;
let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const json = req.url === "/json";
    const read = json ? readJsonBody(req, { limit: LIMIT }) : readBody(req, { limit: LIMIT });
    seen = read.then(
      (v) => (Buffer.isBuffer(v) ? v.length : v),
      (e: Error) => e.name,
    );
    read.then(
      (v) => sendJson(res, 200, { read: Buffer.isBuffer(v) ? v.length : v }),
      (e: unknown) => {
        if (e instanceof BodyTooLargeError) sendJsonError(res, 413, "too large", { connection: "close" });
        else if (e instanceof BodyNotJsonError) sendJsonError(res, 400, "not json");
        else if (!(e instanceof BodyAbortedError)) sendJsonError(res, 500, String(e));
      },
    );
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends `chunks` (chunked unless headers say otherwise), ending the request only when `end` is true. */
function send(path: string, chunks: (string | Buffer)[], headers: Record<string, string> = {}, end = true) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(`${base}${path}`, { method: "POST", headers });
    req.on("response", (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        body += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on("error", reject);
    for (const c of chunks) req.write(c);
    if (end) req.end();
  });
}

describe("readBody", () => {
  it("reads a body up to the limit, the limit itself included", async () => {
    const r = await send("/raw", ["x".repeat(LIMIT - 10), "y".repeat(10)]);
    expect([r.status, JSON.parse(r.body)]).toEqual([200, { read: LIMIT }]);
    expect(await seen).toBe(LIMIT);
  });

  it("refuses a body one byte over the limit, and the 413 reaches the client whole", async () => {
    const r = await send("/raw", ["x".repeat(LIMIT + 1)]);
    expect([r.status, r.body]).toEqual([413, JSON.stringify({ error: "too large" })]);
    expect(r.headers.connection).toBe("close");
    expect(await seen).toBe("BodyTooLargeError");
  });

  it("refuses a declared Content-Length over the limit before reading any of it", async () => {
    // Only 10 bytes of the declared 16 MiB are ever sent: the answer must not wait for the rest.
    const r = await send("/raw", ["x".repeat(10)], { "content-length": String(16 * 1024 * 1024) }, false);
    expect([r.status, r.body]).toEqual([413, JSON.stringify({ error: "too large" })]);
  });

  it("answers an oversized chunked body that never ends, without waiting for its end", async () => {
    const r = await send("/raw", ["x".repeat(LIMIT), "x".repeat(LIMIT)], {}, false);
    expect([r.status, r.body]).toEqual([413, JSON.stringify({ error: "too large" })]);
  });

  it("answers a 413 to a large upload sent whole (no reset under the client), ten times over", async () => {
    const big = Buffer.alloc(16 * LIMIT, 0x78);
    for (let i = 0; i < 10; i++) {
      const r = await send("/raw", [big], { "content-type": "application/octet-stream" });
      expect(r.status).toBe(413);
    }
  });

  it("rejects with BodyAbortedError when the client goes away mid-body", async () => {
    const req = request(`${base}/raw`, { method: "POST", headers: { "content-length": "100" } });
    req.on("error", () => {});
    const arrived = once(server, "request"); // the handler (the first listener) has started reading by then
    req.write("x".repeat(10));
    await arrived;
    req.destroy();
    expect(await seen).toBe("BodyAbortedError");
  });
});

describe("readJsonBody", () => {
  it("parses a JSON body", async () => {
    const r = await send("/json", [JSON.stringify({ a: [1, "é"] })], { "content-type": "application/json" });
    expect([r.status, JSON.parse(r.body)]).toEqual([200, { read: { a: [1, "é"] } }]);
  });

  it.each([
    ["a malformed", "{oops"],
    ["an empty", ""],
  ])("refuses %s body with BodyNotJsonError", async (_label, body) => {
    const r = await send("/json", [body]);
    expect([r.status, r.body]).toEqual([400, JSON.stringify({ error: "not json" })]);
    expect(await seen).toBe("BodyNotJsonError");
  });

  it("refuses an oversized body as too large, not as JSON", async () => {
    const r = await send("/json", [`{"pad":"${"x".repeat(LIMIT)}"}`]);
    expect(r.status).toBe(413);
    expect(await seen).toBe("BodyTooLargeError");
  });
});

describe("sendJson", () => {
  it("answers JSON with its content type and byte length", async () => {
    const r = await send("/json", [JSON.stringify("日本")]);
    expect(r.headers["content-type"]).toBe("application/json");
    expect(Number(r.headers["content-length"])).toBe(Buffer.byteLength(r.body));
    expect(JSON.parse(r.body)).toEqual({ read: "日本" });
  });
});
