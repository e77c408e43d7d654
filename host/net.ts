/** Small pieces every host listener shares. */
import type { Server } from "node:http";
import type { Socket } from "node:net";

/** Listens on 127.0.0.1:port; rejects with the listen error (EADDRINUSE for a taken port). */
export function listenLoopback(server: Server, port: number): Promise<void> {
  return new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(port, "127.0.0.1", () => {
      server.off("error", fail);
      ok();
    });
  });
}

/** Keeps the open connections of a server, so close() can end them instead of waiting on keep-alives. */
export function trackSockets(server: Server): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return sockets;
}
