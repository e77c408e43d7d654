import { describe, expect, it } from "vitest";
import {
  asksUpgrade,
  ChunkedScanner,
  findHead,
  type Head,
  HeadError,
  keepsAlive,
  parseHead,
  requestFraming,
  responseFraming,
  single,
} from "./http1.ts";

const req = (text: string): Head => {
  const buf = Buffer.from(text, "latin1");
  const bounds = findHead(buf);
  if (!bounds) throw new Error("incomplete head");
  return parseHead(buf, bounds[0], bounds[1], "request");
};
const res = (text: string): Head => {
  const buf = Buffer.from(text, "latin1");
  const bounds = findHead(buf)!;
  return parseHead(buf, bounds[0], bounds[1], "response");
};
const refusal = (f: () => unknown): { message: string; status: number } => {
  try {
    f();
  } catch (err) {
    if (err instanceof HeadError) return { message: err.message, status: err.status };
    throw err;
  }
  throw new Error("accepted");
};

describe("message heads", () => {
  it("reads a request head: method, target, version and the headers in their order and case", () => {
    const h = req(
      "POST /desktop/mcp?x=1 HTTP/1.1\r\nHost: localhost:8080\r\nMcp-Session-Id:  abc \r\n\r\n{}",
    );
    expect(h).toMatchObject({ method: "POST", target: "/desktop/mcp?x=1", minor: 1 });
    expect(h.headers).toEqual([
      ["Host", "localhost:8080"],
      ["Mcp-Session-Id", "abc"],
    ]);
    expect(h.names).toEqual(["host", "mcp-session-id"]);
  });

  it("finds where a head ends, skipping empty lines before it, and waits while it is incomplete", () => {
    const buf = Buffer.from("\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\nbody");
    expect(findHead(buf)).toEqual([2, buf.length - 4]);
    expect(findHead(Buffer.from("GET / HTTP/1.1\r\nHost: x\r\n"))).toBeUndefined();
  });

  it("reads a status line with or without a reason phrase", () => {
    expect(res("HTTP/1.1 200 OK\r\n\r\n")).toMatchObject({ status: 200, reason: "OK", minor: 1 });
    expect(res("HTTP/1.0 204\r\n\r\n")).toMatchObject({ status: 204, reason: "", minor: 0 });
  });

  // Each of these can be read two ways by two parsers: the router refuses rather than guess.
  it.each([
    ["a folded header line", "GET / HTTP/1.1\r\nHost: x\r\n continued\r\n\r\n", "malformed header line"],
    ["whitespace before the colon", "GET / HTTP/1.1\r\nHost : x\r\n\r\n", "malformed header name 'Host '"],
    ["a line without a colon", "GET / HTTP/1.1\r\nHost x\r\n\r\n", "malformed header line"],
    [
      "a bare LF inside the head",
      "GET / HTTP/1.1\r\nHost: x\nX-A: b\r\n\r\n",
      "control character in a header line",
    ],
    [
      "a bare CR in a value",
      "GET / HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n",
      "control character in a header line",
    ],
    ["a NUL in a value", "GET / HTTP/1.1\r\nHost: x\0\r\n\r\n", "control character in a header line"],
    ["HTTP/2 over a 1.1 connection", "PRI * HTTP/2.0\r\n\r\n", "malformed request line"],
    ["a lowercase version", "GET / http/1.1\r\n\r\n", "malformed request line"],
    ["a missing target", "GET HTTP/1.1\r\n\r\n", "malformed request line"],
    ["two spaces in the request line", "GET  / HTTP/1.1\r\n\r\n", "malformed request line"],
  ])("refuses %s with 400", (_label, text, message) => {
    expect(refusal(() => req(text))).toEqual({ message, status: 400 });
  });

  it("tells a sender's keep-alive from its version and Connection tokens", () => {
    expect(keepsAlive(req("GET / HTTP/1.1\r\n\r\n"))).toBe(true);
    expect(keepsAlive(req("GET / HTTP/1.1\r\nConnection: Keep-Alive, Close\r\n\r\n"))).toBe(false);
    expect(keepsAlive(req("GET / HTTP/1.0\r\n\r\n"))).toBe(false);
    expect(keepsAlive(req("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"))).toBe(true);
    // As llhttp reads them: Proxy-Connection counts as Connection, a tab after keep-alive voids it.
    expect(keepsAlive(req("GET / HTTP/1.1\r\nProxy-Connection: close\r\n\r\n"))).toBe(false);
    expect(keepsAlive(req("GET / HTTP/1.0\r\nConnection: keep-alive\t\r\n\r\n"))).toBe(false);
    expect(asksUpgrade(req("GET / HTTP/1.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"))).toBe(
      true,
    );
    expect(asksUpgrade(req("GET / HTTP/1.1\r\nUpgrade: websocket\r\n\r\n"))).toBe(false);
  });

  it.each([
    [
      "a method llhttp does not know",
      "FOO / HTTP/1.1\r\n\r\n",
      { message: "unsupported method 'FOO'", status: 501 },
    ],
    ["CONNECT", "CONNECT a:1 HTTP/1.1\r\n\r\n", { message: "unsupported method 'CONNECT'", status: 501 }],
    [
      "obs-text in the target",
      "GET /\xe9 HTTP/1.1\r\n\r\n",
      { message: "malformed request target", status: 400 },
    ],
    ["a target in no form", "GET x HTTP/1.1\r\n\r\n", { message: "malformed request target", status: 400 }],
  ])("refuses %s", (_label, text, expected) => {
    expect(refusal(() => req(text))).toEqual(expected);
  });

  it("refuses a header the guard reads when it is sent twice", () => {
    const h = req("GET / HTTP/1.1\r\nHost: localhost\r\nhost: evil.example\r\n\r\n");
    expect(refusal(() => single(h.host, "Host"))).toEqual({
      message: "more than one 'Host' header",
      status: 400,
    });
  });
});

describe("body framing", () => {
  it.each([
    ["no length", "GET / HTTP/1.1\r\n\r\n", { kind: "none" }],
    ["Content-Length 0", "POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n", { kind: "none" }],
    ["Content-Length", "POST / HTTP/1.1\r\nContent-Length: 42\r\n\r\n", { kind: "length", length: 42 }],
    [
      "a length with blanks before, spaces after",
      "POST / HTTP/1.1\r\nContent-Length: \t 7  \r\n\r\n",
      { kind: "length", length: 7 },
    ],
    ["chunked", "POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n", { kind: "chunked" }],
  ])("reads a request body framed by %s", (_label, text, framing) => {
    expect(requestFraming(req(text))).toEqual(framing);
  });

  it.each([
    [
      "Transfer-Encoding beside Content-Length",
      "POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
      { message: "both Transfer-Encoding and Content-Length", status: 400 },
    ],
    [
      "two lengths, even equal ones (as llhttp)",
      "POST / HTTP/1.1\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\n",
      { message: "more than one Content-Length", status: 400 },
    ],
    [
      "a list of lengths (as llhttp)",
      "POST / HTTP/1.1\r\nContent-Length: 7, 7\r\n\r\n",
      { message: "invalid Content-Length", status: 400 },
    ],
    [
      "a signed length",
      "POST / HTTP/1.1\r\nContent-Length: +3\r\n\r\n",
      { message: "invalid Content-Length", status: 400 },
    ],
    [
      "a coding other than chunked",
      "POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
      { message: "unsupported Transfer-Encoding", status: 501 },
    ],
    [
      "Transfer-Encoding from an HTTP/1.0 client",
      "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
      { message: "Transfer-Encoding in an HTTP/1.0 message", status: 400 },
    ],
  ])("refuses %s", (_label, text, expected) => {
    expect(refusal(() => requestFraming(req(text)))).toEqual(expected);
  });

  it("reads no response body for HEAD, 1xx, 204 and 304, and a close-delimited one without a length", () => {
    const chunked = res("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    expect(responseFraming(chunked, "HEAD")).toEqual({ kind: "none" });
    expect(responseFraming(chunked, "GET")).toEqual({ kind: "chunked" });
    for (const s of ["100 Continue", "204 No Content", "304 Not Modified"]) {
      expect(responseFraming(res(`HTTP/1.1 ${s}\r\nContent-Length: 5\r\n\r\n`), "GET")).toEqual({
        kind: "none",
      });
    }
    expect(responseFraming(res("HTTP/1.1 200 OK\r\n\r\n"), "GET")).toEqual({ kind: "close" });
  });
});

describe("the chunked scanner", () => {
  const BODY = "5;name=value\r\nhello\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: t\r\n\r\n";
  const NEXT = "GET /next HTTP/1.1\r\n\r\n";

  it("finds the end of a body with extensions and trailers, however the bytes are split", () => {
    const bytes = Buffer.from(BODY + NEXT);
    for (let cut = 0; cut <= bytes.length; cut++) {
      const s = new ChunkedScanner();
      const decoded: Buffer[] = [];
      const first = s.scan(bytes.subarray(0, cut), 0, (d) => decoded.push(Buffer.from(d)));
      const second = s.done ? 0 : s.scan(bytes.subarray(cut), 0, (d) => decoded.push(Buffer.from(d)));
      expect(s.done).toBe(true);
      expect(first + second).toBe(BODY.length);
      expect(Buffer.concat(decoded).toString()).toBe("helloabcdefghijklmnopqrstuvwxyz");
    }
  });

  it("reads what llhttp reads: quoted and empty extensions, leading zeros beyond twelve digits", () => {
    const body = '3;a="x \\" y";;=v\r\nabc\r\n00000000000000002;b=c\r\nde\r\n0\r\nX-T: v\r\n\r\n';
    const s = new ChunkedScanner();
    expect(s.scan(Buffer.from(`${body}NEXT`, "latin1"))).toBe(body.length);
    expect(s.done).toBe(true);
  });

  it.each([
    ["a size that is not hex", "zz\r\n", "malformed chunk size"],
    ["an empty size", "\r\n", "malformed chunk size"],
    ["data longer than its size", "2\r\nabc\r\n", "chunk data longer than its size"],
    ["a bare LF after the size", "2\nab\r\n", "malformed chunk size"],
    ["a size beyond 2^48", "1000000000000\r\n", "chunk size too large"],
    ["a space after the size", "2 \r\nab\r\n", "malformed chunk size"],
    ["a space after the ';'", "2; a\r\nab\r\n", "malformed chunk extension"],
    ["an extension value with a space", "2;a=b c\r\nab\r\n", "malformed chunk extension"],
    ["a trailer that is no header line", "0\r\nX-T v\r\n\r\n", "malformed header line"],
    ["Connection in the trailers", "0\r\nConnection: close\r\n\r\n", "a framing field in the trailers"],
  ])("refuses %s", (_label, text, message) => {
    expect(refusal(() => new ChunkedScanner().scan(Buffer.from(text)))).toEqual({ message, status: 400 });
  });
});
