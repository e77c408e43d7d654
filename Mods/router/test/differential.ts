import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { type RunningRouter, startRouter } from "../src/router.ts";

// Differential framing: the same bytes sent to Node's own HTTP/1.1 parser (llhttp, through a node:http server)
// and through the router to a node:http upstream, each side recording the requests it framed. The router must
// forward exactly what llhttp framed (same requests, same order, same bodies), or refuse and stop.

/** One request as a node:http server framed it. */
export interface Framed {
  method: string;
  url: string;
  /** "1.1" or "1.0" */
  version: string;
  /** Header lines as received (rawHeaders pairs). */
  headers: [string, string][];
  /** The body, decoded (chunk framing removed), as latin1. */
  body: string;
  trailers: [string, string][];
  /** The whole body arrived. */
  complete: boolean;
}

/** What one side made of one connection's bytes. */
export interface Outcome {
  requests: Framed[];
  /** The parser's error code, when node:http refused the bytes (clientError). */
  errors: string[];
  /** What the client got back (latin1). */
  answer: string;
  /** The server side neither closed the connection nor let every request end within the time allowed. */
  hung: boolean;
}

const pairs = (raw: string[]): [string, string][] => {
  const out: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) out.push([raw[i]!, raw[i + 1]!]);
  return out;
};

/** A node:http server that records how llhttp framed each request and answers each with a short 200. */
async function recordingServer() {
  let requests: Framed[] = [];
  let errors: string[] = [];
  /** The current case's requests whose body has not ended (nor been aborted) yet. */
  let open = new Set<Framed>();
  let settled: (() => void) | undefined;
  // requireHostHeader off: this side records framing; whether a Host is required is the guard's business.
  const server: Server = createServer({ requireHostHeader: false }, (req: IncomingMessage, res) => {
    const rec: Framed = {
      method: req.method ?? "",
      url: req.url ?? "",
      version: req.httpVersion,
      headers: pairs(req.rawHeaders),
      body: "",
      trailers: [],
      complete: false,
    };
    requests.push(rec);
    const mine = open;
    mine.add(rec);
    const finish = () => {
      if (mine.delete(rec) && mine.size === 0 && mine === open) settled?.();
    };
    req.setEncoding("latin1");
    req.on("data", (c: string) => {
      rec.body += c;
    });
    req.on("end", () => {
      rec.complete = true;
      rec.trailers = pairs(req.rawTrailers);
      finish();
      res.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
      res.end("ok");
    });
    req.on("error", finish);
    req.on("close", finish);
  });
  server.on("clientError", (err: NodeJS.ErrnoException, sock) => {
    errors.push(err.code ?? err.message);
    if (sock.writable) sock.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
    else sock.destroy();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    server,
    port: (server.address() as AddressInfo).port,
    /** Starts a new case: what is recorded from now on. */
    reset() {
      requests = [];
      errors = [];
      open = new Set();
    },
    /** What was recorded, once every request seen has ended or been aborted. */
    async collect(timeoutMs: number): Promise<{ requests: Framed[]; errors: string[]; hung: boolean }> {
      if (open.size > 0) {
        const t = setTimeout(() => settled?.(), timeoutMs);
        await new Promise<void>((r) => {
          settled = r;
        });
        clearTimeout(t);
        settled = undefined;
      }
      return { requests, errors, hung: open.size > 0 };
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** Writes the parts on a new connection (each in its own write, a turn of the event loop apart), then FIN;
 *  resolves with everything answered once the other side has closed, or after timeoutMs (then hung). */
export async function exchange(
  port: number,
  parts: Buffer[],
  timeoutMs: number,
): Promise<{ answer: string; hung: boolean }> {
  const sock = connect({ host: "127.0.0.1", port, noDelay: true, allowHalfOpen: false });
  sock.setEncoding("latin1");
  let answer = "";
  sock.on("data", (c: string) => {
    answer += c;
  });
  sock.on("error", () => {});
  const closed = once(sock, "close");
  await once(sock, "connect");
  for (const p of parts) {
    if (sock.destroyed) break;
    sock.write(p);
    await new Promise<void>((r) => setImmediate(r));
  }
  if (!sock.destroyed) sock.end();
  let hung = false;
  const t = setTimeout(() => {
    hung = true;
    sock.destroy();
  }, timeoutMs);
  await closed;
  clearTimeout(t);
  return { answer, hung };
}

/** llhttp as node:http runs it, fed the bytes directly. */
export async function startReference() {
  const rec = await recordingServer();
  return {
    async run(parts: Buffer[], timeoutMs = 10_000): Promise<Outcome> {
      rec.reset();
      const sent = await exchange(rec.port, parts, timeoutMs);
      const seen = await rec.collect(timeoutMs);
      return { ...seen, answer: sent.answer, hung: sent.hung || seen.hung };
    },
    close: rec.close,
  };
}

/** The router in front of a recording node:http upstream (mounted at /raw/mcp). */
export async function startRouted() {
  const rec = await recordingServer();
  const router: RunningRouter = await startRouter({
    port: 0,
    upstreams: { raw: { mod: "recorder", port: rec.port } },
  });
  return {
    router,
    async run(parts: Buffer[], timeoutMs = 10_000): Promise<Outcome> {
      rec.reset();
      const sent = await exchange(router.port, parts, timeoutMs);
      const seen = await rec.collect(timeoutMs);
      return { ...seen, answer: sent.answer, hung: sent.hung || seen.hung };
    },
    async close() {
      await router.close();
      await rec.close();
    },
  };
}

// RFC 9110 §7.6.1: what a proxy drops (besides what Connection names); Host is rewritten to the mod's.
const NOT_FORWARDED = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
]);

/** The header lines a proxy passes on, as the reference received them. */
function endToEnd(headers: [string, string][]): [string, string][] {
  const named = new Set(
    headers
      .filter(([n]) => n.toLowerCase() === "connection")
      .flatMap(([, v]) => v.split(",").map((t) => t.trim().toLowerCase())),
  );
  return headers.filter(([n]) => !NOT_FORWARDED.has(n.toLowerCase()) && !named.has(n.toLowerCase()));
}

/** The statuses of the answers the router wrote (its answers and the upstream's all say HTTP/1.1). */
export const statuses = (answer: string): number[] =>
  [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));

// Errors an upstream's parser raises when the router aborts a request mid-body (it closes the mod connection).
const ABORTED = new Set(["HPE_INVALID_EOF_STATE", "ECONNRESET"]);

/**
 * Compares the two outcomes of one byte sequence; returns what disagrees, or undefined.
 * The router answers absolute-form and asterisk targets itself (404), so those are not expected upstream.
 */
export function disagreement(ref: Outcome, routed: Outcome): string | undefined {
  const expected = ref.requests.filter((r) => r.url.startsWith("/raw/mcp"));
  const got = routed.requests;
  if (ref.hung) return "llhttp's server neither closed the connection nor ended every request (harness)";
  if (routed.hung) return "the router left the connection or a request to the mod hanging";
  const badUpstream = routed.errors.filter((e) => !ABORTED.has(e));
  if (badUpstream.length) return `the upstream's llhttp refused what the router forwarded: ${badUpstream}`;
  // The router's answers in order (1xx aside): the mod's 200 for each request it got whole, the router's own
  // 404 for a target it does not route, or a refusal, after which nothing may follow on that connection.
  const answers = statuses(routed.answer).filter((s) => s >= 200);
  const refusal = answers.findIndex((s) => s >= 400 && s !== 404);
  if (refusal >= 0 && refusal < answers.length - 1) {
    return `the router answered ${answers.slice(refusal + 1)} after refusing with ${answers[refusal]}`;
  }
  const whole = got.filter((r) => r.complete).length;
  if (answers.filter((s) => s === 200).length !== whole) {
    return `the router answered ${answers} for ${whole} requests the mod got whole`;
  }
  if (got.length > expected.length) {
    return `the router forwarded ${got.length} requests, llhttp framed ${expected.length}`;
  }
  for (let i = 0; i < got.length; i++) {
    const g = got[i]!;
    const e = expected[i]!;
    const where = `request ${i + 1}`;
    if (g.method !== e.method) return `${where}: method ${g.method} != ${e.method}`;
    if (g.url !== e.url.replace(/^\/raw\/mcp/, "/mcp")) return `${where}: target ${g.url} != ${e.url}`;
    const gh = JSON.stringify(endToEnd(g.headers));
    const eh = JSON.stringify(endToEnd(e.headers));
    if (gh !== eh) return `${where}: headers ${gh} != ${eh}`;
    if (g.complete && !e.complete) return `${where}: the router completed a body llhttp did not`;
    if (g.complete && g.body !== e.body) {
      return `${where}: body ${JSON.stringify(g.body)} != ${JSON.stringify(e.body)}`;
    }
    if (g.complete && JSON.stringify(g.trailers) !== JSON.stringify(e.trailers)) {
      return `${where}: trailers ${JSON.stringify(g.trailers)} != ${JSON.stringify(e.trailers)}`;
    }
    if (!g.complete) {
      // A body the router stopped forwarding: only as a refusal, and the last thing it forwarded.
      if (i !== got.length - 1) return `${where}: cut short, yet more was forwarded after it`;
      if (e.complete && !statuses(routed.answer).some((s) => s >= 400)) {
        return `${where}: cut short without a refusal`;
      }
    }
  }
  if (got.length < expected.length) {
    // Fewer: only when the router refused (or the connection ended after a request that closes it).
    const st = statuses(routed.answer);
    const last = got.length ? expected[got.length - 1] : undefined;
    const closes = last !== undefined && closesAfter(last);
    if (!closes && !st.some((s) => s >= 400)) {
      return `the router forwarded ${got.length} of the ${expected.length} requests llhttp framed, without refusing`;
    }
  }
  return undefined;
}

/** Whether the connection ends after this request (HTTP/1.0 without keep-alive, or Connection: close). */
function closesAfter(r: Framed): boolean {
  const tokens = r.headers
    .filter(([n]) => n.toLowerCase() === "connection")
    .flatMap(([, v]) => v.split(",").map((t) => t.trim().toLowerCase()));
  return r.version === "1.0" ? !tokens.includes("keep-alive") : tokens.includes("close");
}
