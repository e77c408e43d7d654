// A one-shot MCP client for tests that must talk to the server from inside another namespace:
// connects to argv[2], runs argv[3] with the `run` tool and prints its structured result as JSON, or
// {"error": …} when the connection fails. With argv[4], it connects from that local address, through
// a TCP forwarder as Docker's port publishing does (its connections come from the network's gateway).
import { createConnection, createServer } from "node:net";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { connectClient } from "@yui/mod-kit";

const [url, command, from] = process.argv.slice(2);
if (!url || !command) throw new Error("usage: probe.ts URL COMMAND [FROM_ADDRESS]");
let target = url;
const forwarder = createServer((inbound) => {
  const u = new URL(url);
  const outbound = createConnection({ host: u.hostname, port: Number(u.port), localAddress: from });
  inbound.pipe(outbound).pipe(inbound);
  const end = () => {
    inbound.destroy();
    outbound.destroy();
  };
  for (const s of [inbound, outbound]) {
    s.on("error", end);
    s.on("close", end);
  }
});
if (from) {
  await new Promise<void>((resolve) => forwarder.listen(0, "127.0.0.1", resolve));
  const address = forwarder.address();
  target = `http://localhost:${typeof address === "object" && address ? address.port : 0}/mcp`;
}
try {
  const c = await connectClient(target);
  const r = (await c.client.callTool({ name: "run", arguments: { command } })) as CallToolResult;
  process.stdout.write(`${JSON.stringify(r.structuredContent)}\n`);
  await c.close();
} catch (e) {
  process.stdout.write(`${JSON.stringify({ error: (e as Error).message })}\n`);
} finally {
  forwarder.close();
}
