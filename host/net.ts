/** Small pieces every host listener shares. */
import type { Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";
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
