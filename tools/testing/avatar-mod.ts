/**
 * Test support: the avatar mod in this process against a host's ingress, as the remote agent reaches her body.
 * Turns the host's agent-notify on at `ingressPort`, serves the mod on a free loopback port and connects the
 * real MCP SDK client to it.
 */
import type { CallToolResult } from "@modelcontextprotocol/client";
import { connectClient, serveMcp } from "@yui/mod-kit";
import { createIngressClient } from "../../Mods/avatar/src/ingress-client.ts";
import { buildServer } from "../../Mods/avatar/src/server.ts";
import { AGENT_NOTIFY_KEY } from "../../src/protocol/store-keys.ts";

export interface AvatarMod {
  /** Calls one of the mod's tools. */
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function startAvatarMod(
  store: { set(key: string, value: unknown, by: string): unknown },
  ingressPort: number,
): Promise<AvatarMod> {
  store.set(AGENT_NOTIFY_KEY, { enabled: true, port: ingressPort }, "test");
  const mod = await serveMcp({
    name: "avatar",
    version: "0",
    port: 0,
    build: () => buildServer(createIngressClient(`http://127.0.0.1:${ingressPort}`)),
  });
  const client = await connectClient(mod.url).catch(async (e) => {
    await mod.close();
    throw e;
  });
  return {
    call: (name, args = {}) => client.client.callTool({ name, arguments: args }) as Promise<CallToolResult>,
    async close() {
      await client.close();
      await mod.close();
    },
  };
}
