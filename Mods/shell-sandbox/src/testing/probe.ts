// A one-shot MCP client for tests that must talk to the server from inside another namespace:
// connects to argv[2], runs argv[3] with the `run` tool and prints its structured result as JSON.
import type { CallToolResult } from "@modelcontextprotocol/client";
import { connectClient } from "@yui/mod-kit";

const [url, command] = process.argv.slice(2);
if (!url || !command) throw new Error("usage: probe.ts URL COMMAND");
const c = await connectClient(url);
const r = (await c.client.callTool({ name: "run", arguments: { command } })) as CallToolResult;
process.stdout.write(`${JSON.stringify(r.structuredContent)}\n`);
await c.close();
