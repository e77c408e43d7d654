import { request } from "node:http";
import { connect, createServer, type Socket, type TcpNetConnectOpts } from "node:net";
import { GUARD_REFUSALS, isLoopbackHost, isLoopbackOrigin, listenLoopback } from "@yui/mod-kit";
import {
  asksUpgrade,
  ChunkedScanner,
  connectionTokens,
  type Framing,
  findHead,
  type Head,
  HeadError,
  keepsAlive,
  MAX_HEAD_BYTES,
  parseHead,
  requestFraming,
  responseFraming,
  serializeHead,
  single,
  statusLine,
} from "./http1.ts";
import type { Upstream } from "./upstreams.ts";

// The router speaks HTTP/1.1 itself on node:net rather than through node:http's server and client: a
// pass-through then costs one read and one write per chunk, with bodies (chunked SSE included) forwarded
// byte for byte instead of decoded and re-encoded. bench:router measured node:http at 4-5x nginx's CPU per
// request; docs/mods.md has the numbers. The parser is strict (src/http1.ts) so router and mod never
// disagree about where a message ends.

/** The router's own answers, written once so tests assert the same strings. */
export const ROUTER_ERRORS = {
  notRouted: {
    status: 404,
    message: "Not Found: the router serves /<prefix>/mcp and GET /_mods",
  },
  unknownPrefix: (prefix: string) => ({
    status: 404,
    message: `Not Found: no mod is registered under '/${prefix}/mcp'; GET /_mods lists the prefixes`,
  }),
  unreachable: (prefix: string, up: Upstream) => ({
    status: 502,
    message: `Bad Gateway: mod '${up.mod}' (prefix '${prefix}') does not answer on 127.0.0.1:${up.port}`,
  }),
  /** The mod answered with something that is not HTTP/1.1 the router can pass on. */
  badUpstream: (prefix: string, up: Upstream) => ({
    status: 502,
    message: `Bad Gateway: mod '${up.mod}' (prefix '${prefix}') sent a malformed HTTP response`,
  }),
  headTooLarge: {
    status: 431,
    message: `Request Header Fields Too Large: a request head is limited to ${MAX_HEAD_BYTES / 1024} KiB`,
  },
  /** A request the router cannot read one way only. */
  badRequest: (why: string) => ({ status: 400, message: `Bad Request: ${why}` }),
} as const;

/** One row of GET /_mods. */
export interface ModListing {
  prefix: string;
  mod: string;
  port: number;
  path: string;
  upstream: string;
  up: boolean;
}

/** A running router. */
export interface RunningRouter {
  url: string;
  port: number;
  close(): Promise<void>;
}

// RFC 9110 §7.6.1 hop-by-hop headers: they describe one connection, never the next hop's.
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

/** How long an idle client connection (or one still sending its head) is kept: nginx's keepalive is 75 s. */
const CLIENT_IDLE_MS = 60_000;
/** Idle mod connections are dropped well before the mods' own keep-alive (Node's default 5 s) closes them. */
const UPSTREAM_IDLE_MS = 2_000;
/** Pipelined bytes held while a response is in flight before the client is paused. */
const MAX_PENDING_BYTES = 4 * MAX_HEAD_BYTES;
/** How often idle connections are looked at. */
const SWEEP_MS = 1_000;
/** What a socket buffers before it reports backpressure: one full read from the other side (64 KiB) fits. */
const SOCKET_BUFFER = 256 * 1024;

const ROUTE = /^\/([^/?#]+)\/mcp(\?.*)?$/;

/** Whether a mod answers HTTP on its port right now (any status counts: it is there). */
function probe(port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/mcp", method: "GET", timeout: timeoutMs },
      (res) => {
        res.resume();
        resolve(true);
        req.destroy();
      },
    );
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(false));
    req.end();
  });
}

/** Lists the registered mods, probing each one now. */
export async function listMods(upstreams: Readonly<Record<string, Upstream>>): Promise<ModListing[]> {
  return Promise.all(
    Object.entries(upstreams).map(async ([prefix, up]) => ({
      prefix,
      mod: up.mod,
      port: up.port,
      path: `/${prefix}/mcp`,
      upstream: `http://127.0.0.1:${up.port}/mcp`,
      up: await probe(up.port),
    })),
  );
}

/** The end-to-end headers of a head: hop-by-hop ones and those its Connection names are left out. */
function endToEnd(head: Head): [string, string][] {
  const named = connectionTokens(head);
  return head.headers.filter((_, i) => !HOP_BY_HOP.has(head.names[i]!) && !named.has(head.names[i]!));
}

/** Tracks where one message body ends in the bytes that follow its head. */
class Body {
  private remaining = 0;
  private scanner: ChunkedScanner | undefined;
  constructor(readonly framing: Framing) {
    if (framing.kind === "length") this.remaining = framing.length;
    if (framing.kind === "chunked") this.scanner = new ChunkedScanner();
  }
  get done(): boolean {
    if (this.framing.kind === "length") return this.remaining === 0;
    if (this.scanner) return this.scanner.done;
    return this.framing.kind === "none";
  }
  /** How many bytes of buf (from `from`) belong to the body; `onData` gets the decoded chunk payloads. */
  take(buf: Buffer, from: number, onData?: (data: Buffer) => void): number {
    if (this.scanner) return this.scanner.scan(buf, from, onData);
    if (this.framing.kind === "close") return buf.length - from;
    const n = Math.min(this.remaining, buf.length - from);
    this.remaining -= n;
    return n;
  }
}

/** A connection to a mod, reused across requests while both sides keep it alive. */
class UpstreamConn {
  exchange: Exchange | undefined;
  error: NodeJS.ErrnoException | undefined;
  closed = false;
  /** When it last went back to the pool (performance.now()). */
  idleSince = 0;
  constructor(
    readonly port: number,
    readonly sock: Socket,
    private readonly pool: UpstreamPool,
  ) {
    sock.setNoDelay(true);
    sock.on("data", (c: Buffer) => {
      // Bytes from an idle mod connection belong to no request: it cannot be trusted again.
      if (this.exchange) this.exchange.onUpstreamData(c);
      else sock.destroy();
    });
    sock.on("drain", () => this.exchange?.client.sock.resume());
    sock.on("error", (e: NodeJS.ErrnoException) => {
      this.error = e;
    });
    sock.on("close", () => {
      this.closed = true;
      this.pool.forget(this);
      this.exchange?.onUpstreamClose(this.error);
    });
  }
}

/** Idle mod connections per port. */
class UpstreamPool {
  private readonly idle = new Map<number, UpstreamConn[]>();
  private readonly all = new Set<UpstreamConn>();

  acquire(port: number): UpstreamConn {
    const list = this.idle.get(port);
    let conn = list?.pop();
    while (conn?.closed) conn = list?.pop();
    if (conn) return conn;
    // highWaterMark reaches the socket's streams (Node >= 20.1), though @types/node leaves it out here.
    const opts: TcpNetConnectOpts & { highWaterMark: number } = {
      host: "127.0.0.1",
      port,
      noDelay: true,
      highWaterMark: SOCKET_BUFFER,
    };
    conn = new UpstreamConn(port, connect(opts), this);
    this.all.add(conn);
    return conn;
  }

  release(conn: UpstreamConn): void {
    conn.exchange = undefined;
    conn.idleSince = performance.now();
    const list = this.idle.get(conn.port);
    if (list) list.push(conn);
    else this.idle.set(conn.port, [conn]);
  }

  /** Drops connections idle for longer than UPSTREAM_IDLE_MS (one sweep instead of a timer per socket). */
  sweep(now: number): void {
    for (const list of this.idle.values()) {
      for (const conn of list) if (now - conn.idleSince > UPSTREAM_IDLE_MS) conn.sock.destroy();
    }
  }

  forget(conn: UpstreamConn): void {
    this.all.delete(conn);
    const list = this.idle.get(conn.port);
    const i = list ? list.indexOf(conn) : -1;
    if (i >= 0) list!.splice(i, 1);
  }

  destroy(): void {
    for (const c of this.all) c.sock.destroy();
  }
}

interface RouterContext {
  upstreams: Readonly<Record<string, Upstream>>;
  pool: UpstreamPool;
  log?: (line: string) => void;
}

/** One client connection: reads request heads, answers locally or hands each request to an Exchange. */
class ClientConn {
  /** Bytes read but not yet handled: a head in progress, or a pipelined request waiting its turn. */
  private pending: Buffer | undefined;
  exchange: Exchange | undefined;
  /** A local answer (GET /_mods) is being prepared. */
  private busy = false;
  private closing = false;
  /** The client has half-closed (sent FIN): what it sent is answered, then the connection ends. */
  private readEnded = false;
  /** Paused because pipelined bytes piled up (not for a mod's backpressure). */
  private heldBack = false;
  /** Since when it waits for a request (performance.now()); -1 while one is in flight. */
  idleSince = performance.now();

  constructor(
    readonly sock: Socket,
    private readonly ctx: RouterContext,
  ) {
    sock.setNoDelay(true);
    sock.on("data", (c: Buffer) => this.onData(c));
    sock.on("drain", () => this.exchange?.up.sock.resume());
    sock.on("end", () => this.onEnd());
    sock.on("error", () => {});
    sock.on("close", () => {
      this.closing = true;
      this.exchange?.onClientClose();
    });
  }

  private onData(chunk: Buffer): void {
    if (this.closing) return;
    const ex = this.exchange;
    if (ex && !ex.requestDone) {
      let n: number;
      try {
        n = ex.forwardRequestBody(chunk);
      } catch (err) {
        ex.fail(err);
        return;
      }
      if (n === chunk.length) return;
      chunk = chunk.subarray(n);
    }
    this.pending = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    if (this.exchange || this.busy) {
      // Pipelined requests wait for the response in flight; a client that keeps sending is paused.
      if (this.pending.length > MAX_PENDING_BYTES) {
        this.heldBack = true;
        this.sock.pause();
      }
      return;
    }
    this.handlePending();
  }

  private onEnd(): void {
    this.readEnded = true;
    const ex = this.exchange;
    // A body cut short can never be completed: the mod's request is aborted, the client told so.
    if (ex && !ex.requestDone) ex.fail(new HeadError("the request ended before its body"));
    else this.endIfDrained();
  }

  /** With the client's side closed, the connection ends once nothing is left to answer. */
  private endIfDrained(): void {
    if (this.readEnded && !this.exchange && !this.busy && !this.closing) this.end();
  }

  /** Handles the requests in `pending`, one at a time, until a head is incomplete or one stays in flight. */
  handlePending(): void {
    while (this.pending && !this.exchange && !this.busy && !this.closing) {
      const buf = this.pending;
      const bounds = findHead(buf);
      // Too large whether it is still coming or arrived whole in one read.
      if (bounds ? bounds[1] - bounds[0] > MAX_HEAD_BYTES : buf.length > MAX_HEAD_BYTES) {
        this.reply(ROUTER_ERRORS.headTooLarge.status, ROUTER_ERRORS.headTooLarge.message, false);
        break;
      }
      if (!bounds) break;
      this.pending = bounds[1] < buf.length ? buf.subarray(bounds[1]) : undefined;
      this.handleHead(buf, bounds[0], bounds[1]);
    }
    if (this.heldBack && !this.closing) {
      this.heldBack = false;
      this.sock.resume();
    }
    this.endIfDrained();
  }

  private handleHead(buf: Buffer, start: number, end: number): void {
    let head: Head;
    let framing: Framing;
    let host: string | undefined;
    let origin: string | undefined;
    try {
      head = parseHead(buf, start, end, "request");
      framing = requestFraming(head);
      host = single(head.host, "Host");
      origin = single(head.origin, "Origin");
    } catch (err) {
      const e = err instanceof HeadError ? err : new HeadError(String(err));
      this.reply(e.status, ROUTER_ERRORS.badRequest(e.message).message, false);
      return;
    }
    // A local answer keeps the connection only when no request body has to be skipped first (nor a protocol
    // switch was asked for: llhttp reads nothing after one).
    const keep = keepsAlive(head) && !asksUpgrade(head) && framing.kind === "none";
    // The guard, before anything else: the spec's 421 / 403, and the connection closed as every mod does.
    if (!isLoopbackHost(host)) {
      this.reply(GUARD_REFUSALS.host.status, GUARD_REFUSALS.host.message, false);
      return;
    }
    if (!isLoopbackOrigin(origin)) {
      this.reply(GUARD_REFUSALS.origin.status, GUARD_REFUSALS.origin.message, false);
      return;
    }
    const target = head.target;
    if (target === "/_mods" || target.startsWith("/_mods?")) {
      if (head.method !== "GET") {
        this.write(
          statusLine(405),
          [
            ["Allow", "GET"],
            ["Content-Length", "0"],
          ],
          "",
          keep,
        );
        return;
      }
      this.busy = true;
      listMods(this.ctx.upstreams).then((mods) => {
        this.busy = false;
        if (this.closing) return;
        this.write(statusLine(200), [["Content-Type", "application/json"]], JSON.stringify({ mods }), keep);
        this.handlePending();
      });
      return;
    }
    const match = ROUTE.exec(target);
    if (!match) {
      this.reply(ROUTER_ERRORS.notRouted.status, ROUTER_ERRORS.notRouted.message, keep);
      return;
    }
    const prefix = match[1]!;
    const up = Object.hasOwn(this.ctx.upstreams, prefix) ? this.ctx.upstreams[prefix] : undefined;
    if (!up) {
      const e = ROUTER_ERRORS.unknownPrefix(prefix);
      this.reply(e.status, e.message, keep);
      return;
    }
    this.idleSince = -1;
    const ex = new Exchange(this, this.ctx, head, framing, prefix, up, `/mcp${match[2] ?? ""}`);
    this.exchange = ex;
    // The body bytes that came with the head go on at once, in the same write as the head (one syscall).
    const rest = this.pending;
    if (rest && !ex.requestDone) {
      this.pending = undefined;
      this.onData(rest);
    }
    ex.flushHead();
    // A pipelined request read after the client's FIN whose body did not all come before it never will.
    if (this.readEnded && !ex.requestDone) ex.fail(new HeadError("the request ended before its body"));
  }

  /** The exchange is over: the next pipelined request (if any) is read, or the connection ends. */
  finished(keep: boolean): void {
    this.exchange = undefined;
    this.idleSince = performance.now();
    if (keep) this.handlePending();
    else this.end();
  }

  /** A JSON-RPC error body, as every mod answers its refusals (what an MCP client expects to parse). */
  reply(status: number, message: string, keep: boolean): void {
    const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null });
    this.write(statusLine(status), [["Content-Type", "application/json"]], body, keep);
  }

  private write(line: string, headers: [string, string][], body: string, keep: boolean): void {
    const all: [string, string][] = [
      ...headers,
      ["Date", new Date().toUTCString()],
      ...(body ? ([["Content-Length", String(Buffer.byteLength(body))]] as [string, string][]) : []),
      ["Connection", keep ? "keep-alive" : "close"],
    ];
    this.sock.write(Buffer.concat([serializeHead(line, all), Buffer.from(body)]));
    if (!keep) this.end();
  }

  end(): void {
    this.closing = true;
    this.pending = undefined;
    // A client that never reads its answer nor closes is dropped by the sweep (idleSince stays set).
    this.sock.end();
  }

  /** Drops the connection when it has waited for a request longer than CLIENT_IDLE_MS. */
  sweep(now: number): void {
    if (this.idleSince >= 0 && !this.busy && now - this.idleSince > CLIENT_IDLE_MS) this.sock.destroy();
  }
}

/** One request passed to a mod and its response passed back, bytes streamed both ways as they come. */
class Exchange {
  readonly up: UpstreamConn;
  private readonly reqBody: Body;
  private resHead: Head | undefined;
  private resBody: Body | undefined;
  /** Bytes of the mod's answer read before its head was complete. */
  private upPending: Buffer | undefined;
  /** Anything of the response has gone to the client. */
  private responded = false;
  /** An HTTP/1.0 client: chunked answers are decoded for it and the connection closes after. */
  private readonly decode: boolean;
  private keepClient: boolean;
  private over = false;
  /** The request head, until it leaves with the first body bytes (or alone). */
  private upHead: Buffer | undefined;
  /** The response head, until it leaves with the first body bytes (or alone). */
  private clientHead: Buffer | undefined;

  constructor(
    readonly client: ClientConn,
    private readonly ctx: RouterContext,
    private readonly head: Head,
    framing: Framing,
    private readonly prefix: string,
    private readonly upstream: Upstream,
    path: string,
  ) {
    this.reqBody = new Body(framing);
    this.decode = head.minor === 0;
    // After a request that asks to switch protocols llhttp reads no further request: nor does the router.
    this.keepClient = keepsAlive(head) && !asksUpgrade(head);
    const headers = endToEnd(head).map(([n, v]): [string, string] =>
      n.toLowerCase() === "host" ? [n, `127.0.0.1:${upstream.port}`] : [n, v],
    );
    if (framing.kind === "chunked") headers.push(["Transfer-Encoding", "chunked"]);
    this.upHead = serializeHead(`${head.method} ${path} HTTP/1.1`, headers);
    this.up = ctx.pool.acquire(upstream.port);
    this.up.exchange = this;
  }

  /** Sends the request head to the mod if no body bytes took it along. */
  flushHead(): void {
    // Not when the body bytes that came with the head were refused: nothing of it goes to the mod then.
    if (this.upHead && !this.over) this.up.sock.write(this.upHead);
    this.upHead = undefined;
  }

  get requestDone(): boolean {
    return this.reqBody.done;
  }

  /** Forwards the part of a client chunk that belongs to the request body; returns its length. */
  forwardRequestBody(chunk: Buffer): number {
    const n = this.reqBody.take(chunk, 0);
    if (n === 0) return 0;
    const ok = writeAfter(this.up.sock, this.upHead, n === chunk.length ? chunk : chunk.subarray(0, n));
    this.upHead = undefined;
    // Backpressure: the client waits while the mod's socket is full (resumed on its drain).
    if (!ok) this.client.sock.pause();
    return n;
  }

  onUpstreamData(chunk: Buffer): void {
    try {
      if (this.resBody) {
        this.forwardResponseBody(chunk, 0);
        return;
      }
      const buf = this.upPending ? Buffer.concat([this.upPending, chunk]) : chunk;
      this.upPending = undefined;
      const off = this.readResponseHead(buf);
      if (off >= 0) this.forwardResponseBody(buf, off);
    } catch (err) {
      this.fail(err, true);
    }
  }

  /** Reads heads until the final one (1xx are passed on); returns where its body starts, or -1 for more bytes. */
  private readResponseHead(buf: Buffer): number {
    let from = 0;
    for (;;) {
      const rest = from ? buf.subarray(from) : buf;
      const bounds = findHead(rest);
      if (bounds ? bounds[1] - bounds[0] > MAX_HEAD_BYTES : rest.length > MAX_HEAD_BYTES) {
        throw new HeadError("response head too large");
      }
      if (!bounds) {
        this.upPending = rest.length ? rest : undefined;
        return -1;
      }
      const head = parseHead(rest, bounds[0], bounds[1], "response");
      from += bounds[1];
      if (head.status === 101) throw new HeadError("unrequested protocol switch");
      if (head.status < 200) {
        // 100 Continue and friends go on to an HTTP/1.1 client as they are (RFC 9110 §15.2).
        if (!this.decode) {
          this.responded = true;
          this.client.sock.write(serializeHead(statusLine(head.status, head.reason), endToEnd(head)));
        }
        continue;
      }
      this.resHead = head;
      const framing = responseFraming(head, this.head.method);
      this.resBody = new Body(framing);
      const headers = endToEnd(head);
      if (framing.kind === "close" || (framing.kind === "chunked" && this.decode)) this.keepClient = false;
      if (framing.kind === "chunked" && !this.decode) headers.push(["Transfer-Encoding", "chunked"]);
      if (!this.keepClient) headers.push(["Connection", "close"]);
      else if (this.decode) headers.push(["Connection", "keep-alive"]);
      this.responded = true;
      // Held back until the body bytes that came with it: both leave in one write (one syscall, one packet).
      this.clientHead = serializeHead(statusLine(head.status, head.reason), headers);
      return from;
    }
  }

  private forwardResponseBody(buf: Buffer, from: number): void {
    const body = this.resBody!;
    let n: number;
    if (this.decode && body.framing.kind === "chunked") {
      n = body.take(buf, from, (data) => this.toClient(data));
    } else {
      n = body.take(buf, from);
      if (n > 0) this.toClient(from === 0 && n === buf.length ? buf : buf.subarray(from, from + n));
    }
    // A head with no body bytes yet (an SSE stream opening, a 204) leaves alone, now.
    if (this.clientHead) this.toClient(undefined);
    // Bytes past the end of the response belong to no request: the connection is not reused.
    if (from + n < buf.length) this.up.sock.destroy();
    if (body.done) this.finish();
  }

  private toClient(data: Buffer | undefined): void {
    const ok = writeAfter(this.client.sock, this.clientHead, data);
    this.clientHead = undefined;
    if (!ok) this.up.sock.pause();
  }

  /** The response is complete: the mod connection goes back to the pool when both sides are clean. */
  private finish(): void {
    if (this.over) return;
    this.over = true;
    const reusable =
      !this.up.closed &&
      this.reqBody.done &&
      this.resHead!.minor === 1 &&
      keepsAlive(this.resHead!) &&
      this.resBody!.framing.kind !== "close";
    if (reusable) this.ctx.pool.release(this.up);
    else {
      this.up.exchange = undefined;
      this.up.sock.destroy();
    }
    // A response that overtook its own request body leaves the rest of that body unread: the connection ends.
    this.client.finished(this.keepClient && this.reqBody.done);
  }

  onUpstreamClose(error: NodeJS.ErrnoException | undefined): void {
    if (this.over) return;
    if (this.resBody?.framing.kind === "close") {
      this.finish();
      return;
    }
    this.over = true;
    if (!this.responded) {
      this.logUpstream(error ? (error.code ?? error.message) : "closed the connection without answering");
      const e = ROUTER_ERRORS.unreachable(this.prefix, this.upstream);
      this.client.exchange = undefined;
      this.client.reply(e.status, e.message, false);
    } else {
      // The mod dropped the stream mid-way: drop the client's too, rather than end it as if complete.
      this.client.sock.destroy();
    }
  }

  /** The operator's clue when the agent reports 502s: which route, which mod and port, why. */
  private logUpstream(why: string): void {
    this.ctx.log?.(`/${this.prefix}/mcp -> 127.0.0.1:${this.upstream.port} (${this.upstream.mod}): ${why}`);
  }

  /** The client went away (closed its SSE stream, cancelled a call): the mod's request is aborted too. */
  onClientClose(): void {
    if (this.over) return;
    this.over = true;
    this.up.exchange = undefined;
    this.up.sock.destroy();
  }

  /** A malformed message on either side ends the exchange: 400 (431 / 501 as the error says) / 502 if nothing
   *  was answered yet. */
  fail(err: unknown, fromUpstream = false): void {
    if (this.over) return;
    this.over = true;
    this.up.exchange = undefined;
    this.up.sock.destroy();
    if (this.responded) return void this.client.sock.destroy();
    this.client.exchange = undefined;
    const why = err instanceof Error ? err.message : String(err);
    if (fromUpstream) {
      this.logUpstream(why);
      const e = ROUTER_ERRORS.badUpstream(this.prefix, this.upstream);
      this.client.reply(e.status, e.message, false);
    } else {
      const status = err instanceof HeadError ? err.status : 400;
      this.client.reply(status, ROUTER_ERRORS.badRequest(why).message, false);
    }
  }
}

/** Largest body part copied behind its head into one buffer; larger ones are written together with writev. */
const JOIN_LIMIT = 16 * 1024;

/** Writes a held-back head (if any) and data as one write; returns what socket.write returns. */
function writeAfter(sock: Socket, head: Buffer | undefined, data: Buffer | undefined): boolean {
  if (!head) return data ? sock.write(data) : true;
  if (!data || data.length === 0) return sock.write(head);
  if (data.length <= JOIN_LIMIT) return sock.write(Buffer.concat([head, data], head.length + data.length));
  sock.cork();
  sock.write(head);
  const ok = sock.write(data);
  sock.uncork();
  return ok;
}

/** Starts the router on 127.0.0.1:port: guard first, then /_mods or a streamed pass-through to the mod. */
export async function startRouter(opts: {
  port: number;
  upstreams: Readonly<Record<string, Upstream>>;
  /** Where to report a mod that does not answer (the bin passes stderr). */
  log?: (line: string) => void;
}): Promise<RunningRouter> {
  const ctx: RouterContext = { upstreams: opts.upstreams, pool: new UpstreamPool(), log: opts.log };
  const clients = new Set<ClientConn>();
  // Half-open allowed: a client that sends FIN after its request (shutdown(SHUT_WR)) still gets its answer.
  const server = createServer(
    { noDelay: true, allowHalfOpen: true, highWaterMark: SOCKET_BUFFER },
    (sock) => {
      const conn = new ClientConn(sock, ctx);
      clients.add(conn);
      sock.once("close", () => clients.delete(conn));
    },
  );
  // Idle limits are kept by one sweep a second rather than a timer per socket re-armed on every read.
  const sweeper = setInterval(() => {
    const now = performance.now();
    for (const c of clients) c.sweep(now);
    ctx.pool.sweep(now);
  }, SWEEP_MS);
  sweeper.unref();

  const port = await listenLoopback(server, opts.port);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async close() {
      clearInterval(sweeper);
      for (const c of clients) c.sock.destroy();
      ctx.pool.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
