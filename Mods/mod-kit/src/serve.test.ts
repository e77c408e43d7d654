import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { connectClient } from "./client.ts";
import { GUARD_REFUSALS } from "./guard.ts";
import { SERVE_ERRORS, type ServedMcp, serveMcp } from "./serve.ts";
import { expectLoopbackOnly, INITIALIZE_BODY, MCP_POST_HEADERS, rawRequest } from "./testing.ts";
import { toolError, toolText } from "./tool-result.ts";

const FAIL_MESSAGE = "nothing to fail on: pass reason";

function build(): McpServer {
  const server = new McpServer({ name: "kit-test", version: "0.0.1" });
  server.registerTool(
    "echo",
    { description: "Echo text back", inputSchema: z.object({ text: z.string() }) },
    async ({ text }) => toolText(text),
  );
  server.registerTool("fail", { description: "Always a tool error" }, async () => toolError(FAIL_MESSAGE));
  return server;
}

let served: ServedMcp;
beforeAll(async () => {
  served = await serveMcp({ name: "kit-test", version: "0.0.1", port: 0, build });
});
afterAll(async () => {
  await served.close();
});

const errorMessage = (body: string) => (JSON.parse(body) as { error: { message: string } }).error.message;

describe("serveMcp loopback guard (raw node:http)", () => {
  it.each(["evil.example", "evil.example:9000", "10.0.0.1"])("answers 421 to Host %s", async (host) => {
    const r = await rawRequest(served.url, {
      method: "POST",
      headers: { ...MCP_POST_HEADERS, host },
      body: INITIALIZE_BODY,
    });
    expect(r.status).toBe(GUARD_REFUSALS.host.status);
    expect(errorMessage(r.body)).toBe(GUARD_REFUSALS.host.message);
  });

  it("answers 421 even on a path that does not exist (decided first)", async () => {
    const r = await rawRequest(served.url.replace("/mcp", "/nope"), { headers: { host: "evil.example" } });
    expect(r.status).toBe(421);
  });

  it.each(["https://evil.example", "null"])("answers 403 to Origin %s", async (origin) => {
    const r = await rawRequest(served.url, {
      method: "POST",
      headers: { ...MCP_POST_HEADERS, origin },
      body: INITIALIZE_BODY,
    });
    expect(r.status).toBe(GUARD_REFUSALS.origin.status);
    expect(errorMessage(r.body)).toBe(GUARD_REFUSALS.origin.message);
  });

  it.each([
    ["no browser headers", {}],
    ["Host localhost and a loopback Origin", { host: "localhost", origin: "http://localhost:5173" }],
    ["Host [::1] with a port", { host: "[::1]:1" }],
  ])("serves a local request with %s", async (_label, extra) => {
    const headers: Record<string, string> = { ...MCP_POST_HEADERS, ...extra };
    const r = await rawRequest(served.url, { method: "POST", headers, body: INITIALIZE_BODY });
    expect(r.status).toBe(200);
    expect(r.headers["mcp-session-id"]).toBeTruthy();
    await rawRequest(served.url, {
      method: "DELETE",
      headers: { "mcp-session-id": String(r.headers["mcp-session-id"]) },
    });
  });
});

describe("serveMcp endpoint answers", () => {
  const cases: [string, () => Promise<{ status: number; body: string }>, keyof typeof SERVE_ERRORS][] = [
    ["another path", () => rawRequest(served.url.replace("/mcp", "/other")), "notFound"],
    ["PUT", () => rawRequest(served.url, { method: "PUT" }), "method"],
    [
      "a text/plain POST",
      () => rawRequest(served.url, { method: "POST", headers: { "content-type": "text/plain" }, body: "x" }),
      "mediaType",
    ],
    [
      "a POST that is not JSON",
      () => rawRequest(served.url, { method: "POST", headers: MCP_POST_HEADERS, body: "{oops" }),
      "parse",
    ],
    [
      "a body over 4 MiB",
      () =>
        rawRequest(served.url, {
          method: "POST",
          headers: MCP_POST_HEADERS,
          body: JSON.stringify({ pad: "x".repeat(4 * 1024 * 1024) }),
        }),
      "tooLarge",
    ],
    [
      "a tools/list without a session",
      () =>
        rawRequest(served.url, {
          method: "POST",
          headers: MCP_POST_HEADERS,
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
        }),
      "noSession",
    ],
    [
      "an unknown session",
      () => rawRequest(served.url, { method: "GET", headers: { "mcp-session-id": "no-such-session" } }),
      "unknownSession",
    ],
  ];
  it.each(cases)("refuses %s with its status and message", async (_label, send, key) => {
    const r = await send();
    expect(r.status).toBe(SERVE_ERRORS[key].status);
    expect(errorMessage(r.body)).toBe(SERVE_ERRORS[key].message);
  });
});

describe("serveMcp with the real SDK client", () => {
  it("lists and calls tools over a 2025-era session", async () => {
    const { client, close } = await connectClient(served.url);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(["echo", "fail"]);
      const r = await client.callTool({ name: "echo", arguments: { text: "hi" } });
      expect(r.content).toEqual([{ type: "text", text: "hi" }]);
    } finally {
      await close();
    }
  });

  it("returns a tool error as an isError result with the message", async () => {
    const { client, close } = await connectClient(served.url);
    try {
      const r = await client.callTool({ name: "fail", arguments: {} });
      expect(r.isError).toBe(true);
      expect(r.content).toEqual([{ type: "text", text: FAIL_MESSAGE }]);
    } finally {
      await close();
    }
  });

  it("refuses bad arguments by schema, naming the field", async () => {
    const { client, close } = await connectClient(served.url);
    try {
      const r = await client.callTool({ name: "echo", arguments: { text: 42 } });
      expect(r.isError).toBe(true);
      const [first] = r.content as { type: string; text: string }[];
      expect(first?.text).toMatch(/^Input validation error: .*\btext: Invalid input/);
    } finally {
      await close();
    }
  });

  it("quotes at most 200 characters of a 1 MB tool name it does not know", async () => {
    const name = `nope${"x".repeat(1 << 20)}`;
    const expected = `Tool ${name.slice(0, 200)}…(${name.length} characters) not found`;
    const { client, close } = await connectClient(served.url);
    const modern = new Client(
      { name: "modern", version: "0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await modern.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    try {
      const messageOf = (c: Client) =>
        c.callTool({ name, arguments: {} }).then(
          () => "",
          (e: unknown) => (e as Error).message,
        );
      // 2025 era: the name travels in the body, and the SDK's answer quotes it cut.
      const legacy = await messageOf(client);
      expect(legacy).toContain(expected);
      expect(legacy.length).toBeLessThan(400);
      // 2026-07-28: the name also travels in a header, and Node refuses a 1 MB head (431) before the SDK.
      const refused = await messageOf(modern);
      expect(refused).not.toBe("");
      expect(refused.length).toBeLessThan(400);
      expect(refused).not.toContain("xxxxxxxxxx");
      // A real tool's name is left alone.
      expect((await client.callTool({ name: "echo", arguments: { text: "still" } })).content).toEqual([
        { type: "text", text: "still" },
      ]);
    } finally {
      await close();
      await modern.close();
    }
  });

  it("ends the session on DELETE, after which the id is unknown (404)", async () => {
    const init = await rawRequest(served.url, {
      method: "POST",
      headers: MCP_POST_HEADERS,
      body: INITIALIZE_BODY,
    });
    const id = String(init.headers["mcp-session-id"]);
    const del = await rawRequest(served.url, {
      method: "DELETE",
      headers: { "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
    });
    expect(del.status).toBe(200);
    const again = await rawRequest(served.url, { method: "GET", headers: { "mcp-session-id": id } });
    expect(again.status).toBe(SERVE_ERRORS.unknownSession.status);
  });

  it("serves a 2026-07-28 client that negotiates the modern era", async () => {
    const client = new Client(
      { name: "modern", version: "0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getNegotiatedProtocolVersion()).toBe("2026-07-28");
      const r = await client.callTool({ name: "echo", arguments: { text: "modern" } });
      expect(r.content).toEqual([{ type: "text", text: "modern" }]);
    } finally {
      await client.close();
    }
  });
});

describe("serveMcp binding", () => {
  it("listens on 127.0.0.1 only (the bound address, so a 0.0.0.0 bind fails on any machine)", async () => {
    await expectLoopbackOnly(served.port);
  });
});

describe("serveMcp session limit", () => {
  it("closes the least recently used session past maxSessions, so a vanished client cannot pile them up", async () => {
    const small = await serveMcp({ name: "kit-test", version: "0.0.1", port: 0, build, maxSessions: 2 });
    const open = async () => {
      const r = await rawRequest(small.url, {
        method: "POST",
        headers: MCP_POST_HEADERS,
        body: INITIALIZE_BODY,
      });
      return String(r.headers["mcp-session-id"]);
    };
    const ping = (id: string) =>
      rawRequest(small.url, {
        method: "POST",
        headers: { ...MCP_POST_HEADERS, "mcp-session-id": id, "mcp-protocol-version": "2025-06-18" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "ping" }),
      });
    try {
      const first = await open();
      const second = await open();
      expect((await ping(first)).status).toBe(200); // first is now the most recently used
      const third = await open();
      expect((await ping(second)).status).toBe(SERVE_ERRORS.unknownSession.status);
      expect((await ping(first)).status).toBe(200);
      expect((await ping(third)).status).toBe(200);
    } finally {
      await small.close();
    }
  });
});
