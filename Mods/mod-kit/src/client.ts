import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** Test helper: connects the real SDK Client over StreamableHTTPClientTransport to a URL. */
export async function connectClient(url: string): Promise<{ client: Client; close(): Promise<void> }> {
  const client = new Client({ name: "yui-mod-kit-test", version: "0.1.0" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return {
    client,
    async close() {
      // End the server-side session too, so a test leaves no session behind.
      await transport.terminateSession().catch(() => {});
      await client.close();
    },
  };
}
