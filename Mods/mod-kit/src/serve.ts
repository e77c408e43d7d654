import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { NodeStreamableHTTPServerTransport, toNodeHandler, toWebRequest } from "@modelcontextprotocol/node";
import {
  createMcpHandler,
  isInitializeRequest,
  isJsonContentType,
  isLegacyRequest,
  type McpServer,
} from "@modelcontextprotocol/server";
import { MemoryEventStore } from "./event-store.ts";
import { loopbackGuard } from "./guard.ts";
import { BodyTooLargeError, readJsonBody, sendJson } from "./http-body.ts";
import { launchMod } from "./launch.ts";
import { listenLoopback } from "./listen.ts";
import { quoteInput } from "./quote.ts";

/** Options for serveMcp. `build` makes a fresh server (tools registered) for each session. */
export interface ServeMcpOptions {
  name: string;
  version: string;
  port: number;
  build: () => McpServer;
  /** Sessions kept at most; the least recently used one is closed past it (a client may vanish without DELETE). */
  maxSessions?: number;
}

/** A running mod endpoint. */
export interface ServedMcp {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The endpoint's own answers (outside the SDK), written once so tests assert the same strings. */
export const SERVE_ERRORS = {
  notFound: { status: 404, code: -32000, message: "Not Found: the MCP endpoint is /mcp" },
  method: { status: 405, code: -32000, message: "Method Not Allowed: use POST, GET or DELETE" },
  mediaType: {
    status: 415,
    code: -32000,
    message: "Unsupported Media Type: Content-Type must be application/json",
  },
  tooLarge: { status: 413, code: -32000, message: "Payload Too Large: the body exceeds 4 MiB" },
  parse: { status: 400, code: -32700, message: "Parse error: the body is not valid JSON" },
  noSession: { status: 400, code: -32000, message: "Bad Request: No valid session ID provided" },
  unknownSession: { status: 404, code: -32001, message: "Session not found" },
} as const;

const MAX_BODY = 4 * 1024 * 1024;
/** How long a client waits before reconnecting a dropped SSE stream (the SSE retry field). */
const RETRY_MS = 1000;

function answer(res: ServerResponse, e: { status: number; code: number; message: string }, extra = {}): void {
  sendJson(res, e.status, { jsonrpc: "2.0", error: { code: e.code, message: e.message }, id: null }, extra);
}

/** The longest tool name MCP allows (SEP-986); no registered tool is longer. */
const MAX_TOOL_NAME = 128;

/**
 * The SDK answers an unknown tool with `Tool <name> not found`, the name whole: a tools/call whose name
 * is longer than any tool's has it cut (quoteInput) before the SDK sees it, so the answer quotes at most
 * 200 characters. The cut name carries `…(`, which no tool name has, so it still names no tool.
 */
function boundToolNames(body: unknown): void {
  for (const m of Array.isArray(body) ? body : [body]) {
    const msg = m as { method?: unknown; params?: { name?: unknown } } | null;
    if (msg?.method !== "tools/call" || typeof msg.params !== "object" || msg.params === null) continue;
    const name = msg.params.name;
    if (typeof name === "string" && name.length > MAX_TOOL_NAME) msg.params.name = quoteInput(name);
  }
}

interface Session {
  transport: NodeStreamableHTTPServerTransport;
  server: McpServer;
  lastUsed: number;
}

/** Serves an MCP server over Streamable HTTP at /mcp on 127.0.0.1 (stateful sessions; one server per session,
 *  built by `build`), behind loopbackGuard. */
export async function serveMcp(opts: ServeMcpOptions): Promise<ServedMcp> {
  const maxSessions = opts.maxSessions ?? 64;
  const sessions = new Map<string, Session>();

  // 2025-era clients (every SDK's default today) open a session with initialize and keep it; the
  // 2026-07-28 revision is stateless per request, so it goes to the SDK's own per-request handler.
  const modern = createMcpHandler(() => opts.build(), { legacy: "reject" });
  const modernNode = toNodeHandler(modern);

  const dropSession = async (id: string): Promise<void> => {
    const s = sessions.get(id);
    if (!s) return;
    sessions.delete(id);
    await s.transport.close().catch(() => {});
    await s.server.close().catch(() => {});
  };

  const evictIfFull = async (): Promise<void> => {
    while (sessions.size >= maxSessions) {
      let oldest: [string, Session] | undefined;
      for (const entry of sessions) if (!oldest || entry[1].lastUsed < oldest[1].lastUsed) oldest = entry;
      if (!oldest) return;
      await dropSession(oldest[0]);
    }
  };

  const handleLegacy = async (req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> => {
    const header = req.headers["mcp-session-id"];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId) {
      const s = sessions.get(sessionId);
      if (!s) return answer(res, SERVE_ERRORS.unknownSession);
      s.lastUsed = Date.now();
      return s.transport.handleRequest(req, res, body);
    }
    if (req.method !== "POST" || !isInitializeRequest(body)) return answer(res, SERVE_ERRORS.noSession);
    await evictIfFull();
    const server = opts.build();
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Resumability: events carry ids, and a reconnecting client tells us the last one it saw.
      eventStore: new MemoryEventStore(),
      retryInterval: RETRY_MS,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, lastUsed: Date.now() });
      },
      onsessionclosed: (id) => {
        void dropSession(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (!loopbackGuard(req, res)) return;
    const path = (req.url ?? "/").split("?")[0];
    if (path !== "/mcp") return answer(res, SERVE_ERRORS.notFound);
    if (req.method === "GET" || req.method === "DELETE") return handleLegacy(req, res, undefined);
    if (req.method !== "POST") return answer(res, SERVE_ERRORS.method, { allow: "POST, GET, DELETE" });
    if (!isJsonContentType(req.headers["content-type"])) return answer(res, SERVE_ERRORS.mediaType);
    let body: unknown;
    try {
      body = await readJsonBody(req, { limit: MAX_BODY });
    } catch (err) {
      // The rest of an oversized body is not read: the connection ends after the answer.
      if (err instanceof BodyTooLargeError)
        return answer(res, SERVE_ERRORS.tooLarge, { connection: "close" });
      return answer(res, SERVE_ERRORS.parse);
    }
    boundToolNames(body);
    const probe = await toWebRequest(req, body);
    if (await isLegacyRequest(probe, body)) return handleLegacy(req, res, body);
    return modernNode(req, res, body);
  };

  const http = createServer({ noDelay: true }, (req, res) => {
    handle(req, res).catch((err: unknown) => {
      // A mod never crashes on input: whatever escaped the SDK becomes a 500 on this one request.
      process.stderr.write(`[${opts.name}] request failed: ${(err as Error)?.stack ?? err}\n`);
      if (!res.headersSent) answer(res, { status: 500, code: -32603, message: "Internal error" });
      else res.destroy();
    });
  });

  const port = await listenLoopback(http, opts.port);

  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    async close() {
      await Promise.all([...sessions.keys()].map(dropSession));
      await modern.close().catch(() => {});
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** Options for runMod: serveMcp's, with the catalog port as default and argv to read --port from. */
export interface RunModOptions extends Omit<ServeMcpOptions, "port"> {
  defaultPort: number;
  argv?: string[];
}

/** A mod's bin when serving MCP is all it does: launchMod over serveMcp. */
export function runMod(opts: RunModOptions): Promise<ServedMcp> {
  return launchMod({ ...opts, start: (port) => serveMcp({ ...opts, port }) });
}
