import type { AddressInfo, Server } from "node:net";

/** Listens on 127.0.0.1:port (0 picks a free one); resolves the bound port, or rejects naming a taken port (code EADDRINUSE). */
export function listenLoopback(server: Server, port: number): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once("error", (err: NodeJS.ErrnoException) => {
      reject(
        err.code === "EADDRINUSE"
          ? Object.assign(
              new Error(`port ${port} on 127.0.0.1 is already in use; choose another with --port N`),
              { code: "EADDRINUSE" },
            )
          : err,
      );
    });
    server.listen(port, "127.0.0.1", () => {
      server.removeAllListeners("error");
      resolve((server.address() as AddressInfo).port);
    });
  });
}
