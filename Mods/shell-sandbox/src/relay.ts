// Inside the container the MCP server listens on the container's 127.0.0.1, which Docker's port
// publishing cannot reach (it forwards to the container's own interface). This relay listens on that
// interface and pipes each connection to the loopback server unchanged, so the Host/Origin guard
// still sees the client's headers. Published connections arrive from the network's gateway (Docker's
// proxy, or its NAT, on the host side of the bridge); every other peer — another container on the
// compose network — is cut off at once. Compose publishes the port on the host's 127.0.0.1 only.
import { readFileSync } from "node:fs";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { networkInterfaces } from "node:os";

/** A running relay. */
export interface Relay {
  port: number;
  close(): Promise<void>;
}

/** An IPv4 peer address as net gives it, without the IPv4-mapped IPv6 prefix. */
const plainIPv4 = (address: string | undefined): string => (address ?? "").replace(/^::ffff:/, "");

/**
 * Listens on host:port and pipes every connection to 127.0.0.1:targetPort; with `allowPeer`, a
 * connection from any other address is destroyed before a byte is read or forwarded.
 */
export async function startRelay(
  host: string,
  port: number,
  targetPort: number,
  allowPeer?: (address: string) => boolean,
): Promise<Relay> {
  const open = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    if (allowPeer && !allowPeer(plainIPv4(inbound.remoteAddress))) {
      inbound.destroy();
      return;
    }
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

/** The container's way out: the interface of its default route, that interface's address, and the gateway. */
export interface DefaultRoute {
  iface: string;
  address: string;
  gateway: string;
}

/** The default route in /proc/net/route's text (addresses in little-endian hex), or undefined. */
export function parseDefaultRoute(table: string): { iface: string; gateway: string } | undefined {
  for (const line of table.split("\n").slice(1)) {
    const [iface, destination, gateway] = line.trim().split(/\s+/);
    if (!iface || destination !== "00000000" || !gateway || gateway === "00000000") continue;
    const n = Number.parseInt(gateway, 16);
    return { iface, gateway: [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, n >>> 24].join(".") };
  }
  return undefined;
}

/** The container's default route with its interface's IPv4 address; throws when there is none. */
export function defaultRoute(table = readFileSync("/proc/net/route", "utf8")): DefaultRoute {
  const route = parseDefaultRoute(table);
  if (!route) throw new Error("the container has no default route: no published port can reach it");
  const address = networkInterfaces()[route.iface]?.find(
    (a) => a.family === "IPv4" && !a.address.startsWith("127."),
  )?.address;
  if (!address) throw new Error(`the container's interface ${route.iface} has no IPv4 address`);
  return { ...route, address };
}
