import { Agent, createServer, type IncomingHttpHeaders, request, type ServerResponse } from "node:http";
import { listenLoopback, loopbackGuard } from "@yui/mod-kit";
import type { Upstream } from "./upstreams.ts";

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

/** Copies end-to-end headers (mcp-session-id, mcp-protocol-version, last-event-id, content types, ...). */
function endToEnd(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  const named = String(headers.connection ?? "")
    .toLowerCase()
    .split(",")
    .map((s) => s.trim());
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined || HOP_BY_HOP.has(k) || named.includes(k)) continue;
    out[k] = v;
  }
  return out;
}

function jsonError(res: ServerResponse, e: { status: number; message: string }): void {
  const body = JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: e.message }, id: null });
  res.writeHead(e.status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

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

/** Starts the router on 127.0.0.1:port: guard first, then /_mods or a streamed pass-through to the mod. */
export async function startRouter(opts: {
  port: number;
  upstreams: Readonly<Record<string, Upstream>>;
  /** Where to report a mod that does not answer (the bin passes stderr). */
  log?: (line: string) => void;
}): Promise<RunningRouter> {
  // Reused upstream connections with Nagle off: each SSE event leaves as soon as it is written.
  const agent = new Agent({ keepAlive: true, noDelay: true });

  const server = createServer({ noDelay: true }, (req, res) => {
    if (!loopbackGuard(req, res)) return;
    const url = req.url ?? "/";
    if (url === "/_mods" || url.startsWith("/_mods?")) {
      if (req.method !== "GET") {
        res.writeHead(405, { allow: "GET" }).end();
        return;
      }
      listMods(opts.upstreams).then(
        (mods) => {
          const body = JSON.stringify({ mods });
          res.writeHead(200, {
            "content-type": "application/json",
            "content-length": Buffer.byteLength(body),
          });
          res.end(body);
        },
        () => res.writeHead(500).end(),
      );
      return;
    }
    const match = ROUTE.exec(url);
    if (!match) {
      jsonError(res, ROUTER_ERRORS.notRouted);
      return;
    }
    const prefix = match[1]!;
    const up = Object.hasOwn(opts.upstreams, prefix) ? opts.upstreams[prefix] : undefined;
    if (!up) {
      jsonError(res, ROUTER_ERRORS.unknownPrefix(prefix));
      return;
    }

    const headers = endToEnd(req.headers);
    headers.host = `127.0.0.1:${up.port}`;
    const upReq = request({
      host: "127.0.0.1",
      port: up.port,
      method: req.method,
      path: `/mcp${match[2] ?? ""}`,
      headers,
      agent,
    });

    upReq.on("response", (upRes) => {
      res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, endToEnd(upRes.headers));
      // A streamed answer (SSE: no length): headers go out now, so the client sees its stream open before
      // the first event. A sized answer leaves with its body in one write: headers sent alone first cost
      // a delayed-ACK round (about 40 ms) per request under concurrency (measured by bench:router).
      if (upRes.headers["content-length"] === undefined) res.flushHeaders();
      upRes.on("data", (chunk: Buffer) => {
        // Backpressure: pause the mod while the client's socket is full.
        if (!res.write(chunk)) {
          upRes.pause();
          res.once("drain", () => upRes.resume());
        }
      });
      upRes.on("end", () => res.end());
      // The mod dropped the stream mid-way: drop the client's too, rather than end it as if complete.
      upRes.on("close", () => {
        if (!upRes.complete) res.destroy();
      });
      upRes.on("error", () => res.destroy());
    });

    upReq.on("error", (err: NodeJS.ErrnoException) => {
      if (!res.headersSent) {
        // The operator's clue when the agent reports 502s: which mod, which port, why.
        opts.log?.(`/${prefix}/mcp -> 127.0.0.1:${up.port} (${up.mod}): ${err.code ?? err.message}`);
        jsonError(res, ROUTER_ERRORS.unreachable(prefix, up));
      } else res.destroy();
    });

    // The client went away (closed its SSE stream, cancelled a call): abort the mod's request too.
    res.on("close", () => {
      if (!res.writableFinished) upReq.destroy();
    });

    req.on("error", () => upReq.destroy());
    req.pipe(upReq);
  });

  const port = await listenLoopback(server, opts.port);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    async close() {
      server.closeAllConnections();
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
