import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROUTER_ERRORS } from "../src/router.ts";
import { disagreement, startReference, startRouted, statuses } from "./differential.ts";

// One case per disagreement the framing fuzz found between the router and llhttp (Node's parser, so every
// mod's), each sent both ways: llhttp does what the comment says, the router answers as asserted, and the
// fuzz's own comparison finds nothing between them.

const H = "Host: 127.0.0.1\r\n";
const NEXT = `GET /raw/mcp?next HTTP/1.1\r\n${H}\r\n`;
const chunked = (body: string) => `POST /raw/mcp HTTP/1.1\r\n${H}Transfer-Encoding: chunked\r\n\r\n${body}`;

let reference: Awaited<ReturnType<typeof startReference>>;
let routed: Awaited<ReturnType<typeof startRouted>>;
beforeAll(async () => {
  reference = await startReference();
  routed = await startRouted();
});
afterAll(async () => {
  await routed?.close();
  await reference?.close();
});

/** Sends the bytes both ways in one write; returns the router's side, having checked it agrees with llhttp. */
async function both(bytes: string, llhttp: { framed: number; error?: string }) {
  const parts = [Buffer.from(bytes, "latin1")];
  const ref = await reference.run(parts);
  const got = await routed.run(parts);
  expect({ framed: ref.requests.length, error: ref.errors[0] }).toEqual(llhttp);
  expect(disagreement(ref, got)).toBeUndefined();
  const message = /"message":"((?:[^"\\]|\\.)*)"/.exec(got.answer)?.[1];
  return { forwarded: got.requests.length, statuses: statuses(got.answer), message, hung: got.hung };
}

describe("refused where llhttp refuses, before anything reaches the mod", () => {
  it.each([
    [
      "a method llhttp does not know",
      `FOO /raw/mcp HTTP/1.1\r\n${H}\r\n`,
      501,
      "unsupported method 'FOO'",
      "HPE_INVALID_METHOD",
    ],
    [
      "a lowercase method",
      `get /raw/mcp HTTP/1.1\r\n${H}\r\n`,
      501,
      "unsupported method 'get'",
      "HPE_INVALID_METHOD",
    ],
    [
      "PRI outside the HTTP/2 preface",
      `PRI /raw/mcp HTTP/1.1\r\n${H}\r\n`,
      501,
      "unsupported method 'PRI'",
      "HPE_INVALID_VERSION",
    ],
    [
      "obs-text in the target",
      `GET /raw/mcp?\xe9 HTTP/1.1\r\n${H}\r\n`,
      400,
      "malformed request target",
      "HPE_INVALID_URL",
    ],
    [
      "the same Content-Length twice",
      `POST /raw/mcp HTTP/1.1\r\n${H}Content-Length: 3\r\nContent-Length: 3\r\n\r\nabc`,
      400,
      "more than one Content-Length",
      "HPE_UNEXPECTED_CONTENT_LENGTH",
    ],
    [
      "a list of equal lengths",
      `POST /raw/mcp HTTP/1.1\r\n${H}Content-Length: 3, 3\r\n\r\nabc`,
      400,
      "invalid Content-Length",
      "HPE_INVALID_CONTENT_LENGTH",
    ],
    [
      "a tab after the length",
      `POST /raw/mcp HTTP/1.1\r\n${H}Content-Length: 3\t\r\n\r\nabc`,
      400,
      "invalid Content-Length",
      "HPE_INVALID_CONTENT_LENGTH",
    ],
    [
      "a whole head over 16 KiB in one read",
      `GET /raw/mcp HTTP/1.1\r\n${H}X-Big: ${"b".repeat(17_000)}\r\n\r\n`,
      431,
      undefined,
      "HPE_HEADER_OVERFLOW",
    ],
  ])("%s", async (_label, bytes, status, why, llhttpError) => {
    const r = await both(bytes, { framed: 0, error: llhttpError });
    expect(r.forwarded).toBe(0);
    expect(r.statuses).toEqual([status]);
    expect(r.message).toBe(
      why === undefined ? ROUTER_ERRORS.headTooLarge.message : ROUTER_ERRORS.badRequest(why).message,
    );
  });

  it("a tab after chunked (llhttp frames the head, then refuses it: not chunked, and not a length)", async () => {
    const bytes = `POST /raw/mcp HTTP/1.1\r\n${H}Transfer-Encoding: chunked\t\r\n\r\n0\r\n\r\n`;
    const r = await both(bytes, { framed: 1, error: "HPE_INVALID_TRANSFER_ENCODING" });
    expect([r.forwarded, r.statuses, r.message]).toEqual([
      0,
      [501],
      ROUTER_ERRORS.badRequest("unsupported Transfer-Encoding").message,
    ]);
  });

  it("CONNECT (llhttp frames no request: a tunnel the router does not open)", async () => {
    const r = await both(`CONNECT 127.0.0.1:80 HTTP/1.1\r\n${H}\r\n${NEXT}`, { framed: 0 });
    expect([r.forwarded, r.statuses, r.message]).toEqual([
      0,
      [501],
      ROUTER_ERRORS.badRequest("unsupported method 'CONNECT'").message,
    ]);
  });
});

describe("chunked bodies read with llhttp's grammar", () => {
  it.each([
    ["a space after the size", "3 \r\nabc\r\n0\r\n\r\n", "malformed chunk size", "HPE_INVALID_CHUNK_SIZE"],
    ["a tab after the size", "3\t\r\nabc\r\n0\r\n\r\n", "malformed chunk size", "HPE_INVALID_CHUNK_SIZE"],
    [
      "a space before an extension",
      "3 ;a\r\nabc\r\n0\r\n\r\n",
      "malformed chunk size",
      "HPE_INVALID_CHUNK_SIZE",
    ],
    ["a space after the ';'", "3; a=b\r\nabc\r\n0\r\n\r\n", "malformed chunk extension", "HPE_STRICT"],
    [
      "a space inside an extension value",
      "3;a=b c\r\nabc\r\n0\r\n\r\n",
      "malformed chunk extension",
      "HPE_STRICT",
    ],
    ["a bare CR in an extension", "3;a\rb\r\nabc\r\n0\r\n\r\n", "malformed chunk line", "HPE_STRICT"],
    [
      "an unterminated quoted extension",
      '3;a="x\r\nabc\r\n0\r\n\r\n',
      "malformed chunk extension",
      "HPE_STRICT",
    ],
    [
      "extensions over 16 KiB",
      `3;${"e".repeat(17_000)}\r\nabc\r\n0\r\n\r\n`,
      "chunk extensions too large",
      "HPE_CHUNK_EXTENSIONS_OVERFLOW",
    ],
    [
      "a trailer without a colon",
      `0\r\nX-T v\r\n\r\n${NEXT}`,
      "malformed header line",
      "HPE_INVALID_HEADER_TOKEN",
    ],
    [
      "a folded trailer",
      `0\r\nX-T: a\r\n b\r\n\r\n${NEXT}`,
      "malformed header line",
      "HPE_INVALID_HEADER_TOKEN",
    ],
    [
      "Connection: close in the trailers",
      `0\r\nConnection: close\r\n\r\n${NEXT}`,
      "a framing field in the trailers",
      "HPE_CLOSED_CONNECTION",
    ],
    [
      "Content-Length in the trailers",
      "0\r\nContent-Length: x\r\n\r\n",
      "a framing field in the trailers",
      "HPE_INVALID_CONTENT_LENGTH",
    ],
  ])("refuses %s, and nothing reaches the mod", async (_label, body, why, llhttpError) => {
    // llhttp framed the request's head before it met the body: the router refused before forwarding it.
    const r = await both(chunked(body), { framed: 1, error: llhttpError });
    expect([r.forwarded, r.statuses, r.message]).toEqual([0, [400], ROUTER_ERRORS.badRequest(why).message]);
  });

  it("answers 431 to trailers over 16 KiB, as llhttp refuses them", async () => {
    const r = await both(chunked(`3\r\nabc\r\n0\r\nX-Big: ${"t".repeat(16_400)}\r\n\r\n`), {
      framed: 1,
      error: "HPE_HEADER_OVERFLOW",
    });
    expect([r.forwarded, r.statuses, r.message]).toEqual([
      0,
      [431],
      ROUTER_ERRORS.badRequest("trailers too large").message,
    ]);
  });

  it("passes what llhttp accepts: quoted extensions with an escape, empty ones, leading zeros past 12 digits", async () => {
    const body = `3;a="x \\" y";;=v\r\nabc\r\n${"0".repeat(14)}2;b=c\r\nde\r\n000\r\nX-T: v\r\n\r\n`;
    const r = await both(chunked(body) + NEXT, { framed: 2 });
    expect([r.forwarded, r.statuses]).toEqual([2, [200, 200]]);
  });
});

describe("where llhttp stops reading a connection, the router stops too", () => {
  it.each([
    [
      "an HTTP/1.0 keep-alive with a tab after it",
      `GET /raw/mcp?1 HTTP/1.0\r\n${H}Connection: keep-alive\t\r\n\r\n`,
      "HPE_CLOSED_CONNECTION",
    ],
    [
      "Proxy-Connection: close (llhttp reads it as Connection)",
      `GET /raw/mcp?1 HTTP/1.1\r\n${H}Proxy-Connection: close\r\n\r\n`,
      "HPE_CLOSED_CONNECTION",
    ],
    [
      "a request asking to upgrade",
      `GET /raw/mcp?1 HTTP/1.1\r\n${H}Connection: upgrade\r\nUpgrade: websocket\r\n\r\n`,
      undefined,
    ],
    [
      "an upgrade asked through Proxy-Connection",
      `GET /raw/mcp?1 HTTP/1.1\r\n${H}Proxy-Connection: upgrade\r\nUpgrade: websocket\r\n\r\n`,
      undefined,
    ],
  ])(
    "after %s: the request is answered, the one pipelined behind it is not read",
    async (_label, first, llhttpError) => {
      const r = await both(first + NEXT, { framed: 1, error: llhttpError });
      expect([r.forwarded, r.statuses]).toEqual([1, [200]]);
    },
  );

  it("keeps an HTTP/1.0 connection that says keep-alive as llhttp reads it", async () => {
    const r = await both(`GET /raw/mcp?1 HTTP/1.0\r\n${H}Connection: keep-alive \r\n\r\n${NEXT}`, {
      framed: 2,
    });
    expect([r.forwarded, r.statuses]).toEqual([2, [200, 200]]);
  });
});

it("answers a pipelined request whose body the client's FIN cut short with 400, rather than wait forever", async () => {
  // The FIN arrives while the first request is with the mod; the second is read after it.
  const r = await both(
    `GET /raw/mcp?1 HTTP/1.1\r\n${H}\r\nPOST /raw/mcp?2 HTTP/1.1\r\n${H}Content-Length: 10\r\n\r\nabc`,
    {
      framed: 2,
      error: "HPE_INVALID_EOF_STATE",
    },
  );
  expect(r.hung).toBe(false);
  expect(r.statuses).toEqual([200, 400]);
  expect(r.message).toBe(ROUTER_ERRORS.badRequest("the request ended before its body").message);
});
