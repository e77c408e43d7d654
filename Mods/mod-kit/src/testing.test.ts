// The test helpers must be able to fail: a wildcard or IPv6 bind is caught by its bound address, not by
// whether this machine happens to have another address to connect to.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer, type Server } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { expectLoopbackOnly, freePort, tcpListeners } from "./testing.ts";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** Listens on `host` (ipv6Only so an IPv6 bind stays IPv6 only) and resolves the port. */
async function listenOn(host: string, port = 0): Promise<number> {
  const s = createServer();
  servers.push(s);
  s.listen({ host, port, ipv6Only: host.includes(":") });
  await once(s, "listening");
  return (s.address() as { port: number }).port;
}

describe("expectLoopbackOnly", () => {
  // These tests read the Linux kernel's table of listening sockets; the suite runs on Linux (CI, Debian 12).
  it("is on Linux here, where it reads the bound address", () => {
    expect(process.platform).toBe("linux");
  });

  it("passes a server listening on 127.0.0.1", async () => {
    const port = await listenOn("127.0.0.1");
    expect(tcpListeners(port)).toEqual([{ family: "IPv4", address: "127.0.0.1" }]);
    await expectLoopbackOnly(port);
  });

  it("rejects a server listening on 0.0.0.0, even with no other address on the machine", async () => {
    const port = await listenOn("0.0.0.0");
    expect(tcpListeners(port)).toEqual([{ family: "IPv4", address: "0.0.0.0" }]);
    await expect(expectLoopbackOnly(port)).rejects.toThrow(
      `port ${port} is listened on at 0.0.0.0, not on 127.0.0.1 only`,
    );
  });

  it("rejects a server listening on :: or on ::1", async () => {
    const any = await listenOn("::");
    await expect(expectLoopbackOnly(any)).rejects.toThrow(
      `port ${any} is listened on at [::], not on 127.0.0.1 only`,
    );
    const v6 = await listenOn("::1");
    await expect(expectLoopbackOnly(v6)).rejects.toThrow(
      `port ${v6} is listened on at [::1], not on 127.0.0.1 only`,
    );
  });

  it("rejects a second listener on the same port beside the 127.0.0.1 one", async () => {
    const port = await listenOn("127.0.0.1");
    await listenOn("::1", port);
    await expect(expectLoopbackOnly(port)).rejects.toThrow(
      `port ${port} is listened on at 127.0.0.1, [::1], not on 127.0.0.1 only`,
    );
  });

  it("rejects a port nothing listens on", async () => {
    const port = await freePort();
    await expect(expectLoopbackOnly(port)).rejects.toThrow(`nothing listens on port ${port}`);
  });

  it("sees a child process's listener", async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ["-e", `require("node:net").createServer().listen(${port}, "0.0.0.0", () => console.log("up"))`],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await once(child.stdout!, "data");
      await expect(expectLoopbackOnly(port)).rejects.toThrow(`listened on at 0.0.0.0`);
    } finally {
      child.kill();
      await once(child, "exit");
    }
  });
});
