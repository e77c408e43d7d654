/** Small pieces every host listener shares. */
import type { Server } from "node:http";
import type { Socket } from "node:net";

/** Keeps the open connections of a server, so close() can end them instead of waiting on keep-alives. */
export function trackSockets(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return sockets;
}
