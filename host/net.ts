/** Small pieces every host listener shares. */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Duplex } from "node:stream";
import { sendJson } from "@yui/mod-kit";

/** Keeps the open connections of a server, so close() can end them instead of waiting on keep-alives. */
export function trackSockets(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return sockets;
}

/** Answers JSON `{error:{message}}`, the shape OpenAI clients (and the engine) read. */
export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  sendJson(res, status, { error: { message, type: "yui_proxy" } }, headers);
}

/** Plain words for a connection failure (ECONNREFUSED and friends). */
export function reasonOf(err: unknown): string {
  const code = (err as { code?: string }).code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "host name not found";
  if (code === "ETIMEDOUT" || code === "ECONNRESET") return "the connection dropped";
  return (err as Error).message || String(err);
}

/**
 * The request's URL, read as a path of this host: null for anything else (an absolute-form or `*` target, a
 * malformed one). Read from the path alone, so `//evil.example/x` stays a path here and never names a host.
 */
export function requestUrl(req: IncomingMessage): URL | null {
  const raw = req.url ?? "";
  if (!raw.startsWith("/")) return null;
  try {
    return new URL(`http://127.0.0.1${raw}`);
  } catch {
    return null;
  }
}

/** decodeURIComponent that answers null for a malformed escape (`%c0`, `%`) instead of throwing. */
export function decodePart(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

const REASONS: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  421: "Misdirected Request",
  500: "Internal Server Error",
  502: "Bad Gateway",
};

/** Answers an upgrade request with an HTTP refusal (JSON `{error:{message}}`) and ends the socket. */
export function refuseUpgrade(socket: Duplex, status: number, message: string): void {
  const body = JSON.stringify({ error: { message } });
  if (socket.destroyed) return;
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\n` +
      `content-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** A WebSocket close reason cut to the protocol's 123 bytes of UTF-8 (a longer one makes close() throw). */
export function closeReason(reason: string): string {
  let out = reason.slice(0, 123);
  while (Buffer.byteLength(out) > 123) out = out.slice(0, -1);
  return out;
}
