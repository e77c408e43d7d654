import { McpServer } from "@modelcontextprotocol/server";
import { type ServedMcp, serveMcp, toolText } from "@yui/mod-kit";
import { z } from "zod";

/** Lets a test release each step of the `steps` tool, proving each notification arrived before the next is sent. */
export class Gate {
  private waiters = new Map<number, () => void>();
  private opened = new Set<number>();
  /** Opens step i (the client saw notification i). */
  open(i: number): void {
    this.opened.add(i);
    this.waiters.get(i)?.();
  }
  /** Resolves once step i is open. */
  wait(i: number): Promise<void> {
    if (this.opened.has(i)) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(i, resolve));
  }
}

/** A small real mod for the router tests: echo, and `steps`, which streams progress gated by the client. */
export function startTestMod(gate: Gate): Promise<ServedMcp> {
  const build = () => {
    const server = new McpServer({ name: "test-mod", version: "0.0.1" });
    server.registerTool(
      "echo",
      { description: "Echo text back", inputSchema: z.object({ text: z.string() }) },
      async ({ text }) => toolText(text),
    );
    server.registerTool(
      "steps",
      {
        description: "Sends n progress notifications, each only after the client saw the previous one",
        inputSchema: z.object({ n: z.number().int().min(1).max(50) }),
      },
      async ({ n }, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken;
        if (token === undefined) return toolText("no progress token");
        for (let i = 1; i <= n; i++) {
          await ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress: i, total: n, message: `step ${i}` },
          });
          await gate.wait(i);
        }
        return toolText(`done ${n}`);
      },
    );
    server.registerTool(
      "resumable",
      {
        description:
          "Drops its SSE stream after the first notification, then goes on: the client must resume",
      },
      async (ctx) => {
        const token = ctx.mcpReq._meta?.progressToken ?? "none";
        const progress = (i: number) =>
          ctx.mcpReq.notify({
            method: "notifications/progress",
            params: { progressToken: token, progress: i },
          });
        await progress(1);
        // As a flaky tunnel would: the stream ends mid-call; the events after it wait in the event store.
        ctx.http?.closeSSE?.();
        await progress(2);
        await new Promise((r) => setTimeout(r, 50));
        await progress(3);
        return toolText("resumed");
      },
    );
    return server;
  };
  return serveMcp({ name: "test-mod", version: "0.0.1", port: 0, build });
}
