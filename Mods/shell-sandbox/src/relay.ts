// Inside the container the MCP server listens on the container's 127.0.0.1, which Docker's port
// publishing cannot reach (it forwards to the container's own interface). This relay listens on that
// interface and pipes each connection to the loopback server unchanged, so the Host/Origin guard
// still sees the client's headers. The container's network namespace is private; compose publishes
// the port on the host's 127.0.0.1 only.
import { createConnection, createServer, type Server, type Socket } from "node:net";

/** A running relay. */
export interface Relay {
  port: number;
  close(): Promise<void>;
}

/** Listens on host:port and pipes every connection to 127.0.0.1:targetPort. */
export async function startRelay(host: string, port: number, targetPort: number): Promise<Relay> {
  const open = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    open.add(inbound);
    inbound.on("close", () => open.delete(inbound));
    const outbound = createConnection({ host: "127.0.0.1", port: targetPort });
    inbound.pipe(outbound).pipe(inbound);
    // Either side failing ends both; a reset client must not take the server down.
    const end = () => {
      inbound.destroy();
      outbound.destroy();
    };
    inbound.on("error", end);
    outbound.on("error", end);
    inbound.on("close", end);
    outbound.on("close", end);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Streamable HTTP keeps SSE streams open; close() alone would wait for them forever.
        for (const s of open) s.destroy();
      }),
  };
}
