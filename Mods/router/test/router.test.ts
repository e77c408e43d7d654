import { request } from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { connectClient, GUARD_REFUSALS, type ServedMcp } from "@yui/mod-kit";
import {
  expectLoopbackOnly,
  freePort,
  INITIALIZE_BODY,
  MCP_POST_HEADERS,
  rawRequest,
} from "@yui/mod-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ModListing, ROUTER_ERRORS, type RunningRouter, startRouter } from "../src/router.ts";
import type { Upstream } from "../src/upstreams.ts";
import { RECORDER_RESPONSE_HEADERS, type Seen, startRecorder } from "./recorder.ts";
import { Gate, startTestMod } from "./test-mod.ts";

const gate = new Gate();
let mod: ServedMcp;
let recorder: Awaited<ReturnType<typeof startRecorder>>;
let router: RunningRouter;
let upstreams: Record<string, Upstream>;
const logged: string[] = [];

beforeAll(async () => {
  mod = await startTestMod(gate);
  recorder = await startRecorder();
  upstreams = {
    test: { mod: "test-mod", port: mod.port },
    raw: { mod: "recorder", port: recorder.port },
    down: { mod: "down-mod", port: await freePort() },
  };
  router = await startRouter({ port: 0, upstreams, log: (line) => logged.push(line) });
});
afterAll(async () => {
  await router?.close();
  await mod?.close();
  await recorder?.close();
});

const errorMessage = (body: string) => (JSON.parse(body) as { error: { message: string } }).error.message;

describe("the real SDK client through the router", () => {
  it("lists and calls a mod's tools at /<prefix>/mcp", async () => {
    const { client, close } = await connectClient(`${router.url}/test/mcp`);
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([
        "echo",
        "resumable",
        "steps",
      ]);
      const r = await client.callTool({ name: "echo", arguments: { text: "through the router" } });
      expect(r.content).toEqual([{ type: "text", text: "through the router" }]);
    } finally {
      await close();
    }
  });

  it("delivers every progress notification before the tool finishes (the mod waits for each one)", async () => {
    const { client, close } = await connectClient(`${router.url}/test/mcp`);
    const seen: { progress: number; at: number }[] = [];
    try {
      const result = await client.callTool(
        { name: "steps", arguments: { n: 5 } },
        {
          onprogress: (p) => {
            seen.push({ progress: p.progress, at: performance.now() });
            // The mod sends step i+1 only after this: a buffering proxy would hang the call here.
            gate.open(p.progress);
          },
        },
      );
      const finishedAt = performance.now();
      expect(result.content).toEqual([{ type: "text", text: "done 5" }]);
      expect(seen.map((s) => s.progress)).toEqual([1, 2, 3, 4, 5]);
      for (const s of seen) expect(s.at).toBeLessThan(finishedAt);
    } finally {
      await close();
    }
  });

  it("lets a client resume a dropped SSE stream with Last-Event-ID through the router", async () => {
    // Records what the client sends the router: the resume is a GET carrying Last-Event-ID.
    const sent: { method: string; lastEventId: string | null }[] = [];
    const tap: typeof fetch = (input, init) => {
      sent.push({
        method: init?.method ?? "GET",
        lastEventId: new Headers(init?.headers).get("last-event-id"),
      });
      return fetch(input, init);
    };
    const client = new Client({ name: "resume", version: "0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${router.url}/test/mcp`), { fetch: tap }),
    );
    const close = () => client.close();
    const progress: number[] = [];
    try {
      const result = await client.callTool(
        { name: "resumable", arguments: {} },
        { onprogress: (p) => progress.push(p.progress), timeout: 20_000 },
      );
      expect(result.content).toEqual([{ type: "text", text: "resumed" }]);
      expect(progress).toEqual([1, 2, 3]);
      expect(sent.some((s) => s.method === "GET" && s.lastEventId !== null)).toBe(true);
    } finally {
      await close();
    }
  });

  it("serves a 2026-07-28 (modern era) client through the router as well", async () => {
    const client = new Client({ name: "modern", version: "0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${router.url}/test/mcp`)));
    try {
      expect(client.getProtocolEra()).toBe("modern");
      const r = await client.callTool({ name: "echo", arguments: { text: "modern" } });
      expect(r.content).toEqual([{ type: "text", text: "modern" }]);
    } finally {
      await client.close();
    }
  });
});

describe("router refusals (raw node:http)", () => {
  // Object property names are not routes: the table is looked up by own keys only.
  it.each(["nope", "__proto__", "constructor", "toString"])(
    "answers 404 to the unregistered prefix %s",
    async (prefix) => {
      const before = recorder.seen.length;
      const r = await rawRequest(`${router.url}/${prefix}/mcp`, {
        method: "POST",
        headers: MCP_POST_HEADERS,
        body: "{}",
      });
      const e = ROUTER_ERRORS.unknownPrefix(prefix);
      expect(r.status).toBe(e.status);
      expect(errorMessage(r.body)).toBe(e.message);
      expect(recorder.seen.length).toBe(before);
    },
  );

  it.each(["/", "/test", "/test/other", "/test/mcp/extra"])(
    "answers 404 to the unrouted path %s",
    async (path) => {
      const r = await rawRequest(`${router.url}${path}`);
      expect(r.status).toBe(ROUTER_ERRORS.notRouted.status);
      expect(errorMessage(r.body)).toBe(ROUTER_ERRORS.notRouted.message);
    },
  );

  it("answers 502 when a registered mod is not reachable", async () => {
    const r = await rawRequest(`${router.url}/down/mcp`, {
      method: "POST",
      headers: MCP_POST_HEADERS,
      body: INITIALIZE_BODY,
    });
    const e = ROUTER_ERRORS.unreachable("down", upstreams.down!);
    expect(r.status).toBe(e.status);
    expect(errorMessage(r.body)).toBe(e.message);
    expect(logged).toContain(`/down/mcp -> 127.0.0.1:${upstreams.down!.port} (down-mod): ECONNREFUSED`);
  });

  it.each([
    ["Host", { host: "evil.example:8080" }, GUARD_REFUSALS.host],
    ["Host on a loopback-looking name", { host: "localhost.evil.example" }, GUARD_REFUSALS.host],
    ["Origin", { origin: "https://evil.example" }, GUARD_REFUSALS.origin],
  ])("refuses a non-loopback %s before any mod is contacted", async (_label, headers, refusal) => {
    const before = recorder.seen.length;
    const r = await rawRequest(`${router.url}/raw/mcp`, {
      method: "POST",
      headers: { ...MCP_POST_HEADERS, ...headers },
      body: "{}",
    });
    expect(r.status).toBe(refusal.status);
    expect(errorMessage(r.body)).toBe(refusal.message);
    expect(recorder.seen.length).toBe(before);
  });

  it.each([
    ["Host", { host: "evil.example" }, GUARD_REFUSALS.host],
    ["Origin", { origin: "http://evil.example" }, GUARD_REFUSALS.origin],
  ])("refuses a non-loopback %s on GET /_mods and on an unknown prefix too", async (_l, headers, refusal) => {
    for (const path of ["/_mods", "/nope/mcp"]) {
      expect((await rawRequest(`${router.url}${path}`, { headers })).status).toBe(refusal.status);
    }
  });
});

describe("GET /_mods", () => {
  it("lists every registered mod with prefix, port, path and whether it answers now", async () => {
    const r = await rawRequest(`${router.url}/_mods`, { headers: { host: "localhost" } });
    expect(r.status).toBe(200);
    const { mods } = JSON.parse(r.body) as { mods: ModListing[] };
    expect(mods).toEqual([
      { prefix: "test", mod: "test-mod", port: mod.port, path: "/test/mcp", upstream: mod.url, up: true },
      {
        prefix: "raw",
        mod: "recorder",
        port: recorder.port,
        path: "/raw/mcp",
        upstream: `http://127.0.0.1:${recorder.port}/mcp`,
        up: true,
      },
      {
        prefix: "down",
        mod: "down-mod",
        port: upstreams.down!.port,
        path: "/down/mcp",
        upstream: `http://127.0.0.1:${upstreams.down!.port}/mcp`,
        up: false,
      },
    ]);
  });
});

describe("pass-through", () => {
  it("forwards MCP headers, the query and the body, rewrites Host, and returns the mod's headers", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/list" });
    const r = await rawRequest(`${router.url}/raw/mcp?x=1`, {
      method: "POST",
      headers: {
        ...MCP_POST_HEADERS,
        host: "localhost:8080",
        "mcp-session-id": "abc",
        "mcp-protocol-version": "2025-06-18",
        "last-event-id": "41",
        connection: "keep-alive, x-hop",
        "x-hop": "dropped",
      },
      body,
    });
    expect(r.status).toBe(200);
    const seen = JSON.parse(r.body) as Seen;
    expect(seen.method).toBe("POST");
    expect(seen.url).toBe("/mcp?x=1");
    expect(seen.bytes).toBe(Buffer.byteLength(body));
    expect(seen.headers).toMatchObject({
      host: `127.0.0.1:${recorder.port}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": "abc",
      "mcp-protocol-version": "2025-06-18",
      "last-event-id": "41",
    });
    expect(seen.headers["x-hop"]).toBeUndefined();
    expect(r.headers).toMatchObject(RECORDER_RESPONSE_HEADERS);
  });

  it("passes DELETE and the mod's status through", async () => {
    const r = await rawRequest(`${router.url}/raw/mcp?status=204`, {
      method: "DELETE",
      headers: { "mcp-session-id": "abc" },
    });
    expect(r.status).toBe(204);
    expect(recorder.seen.at(-1)).toMatchObject({ method: "DELETE", url: "/mcp?status=204" });
  });

  it("streams a request body to the mod before the client has finished sending it", async () => {
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${router.url}/raw/mcp?scenario=upload`, {
        method: "POST",
        headers: { "content-type": "application/octet-stream" },
      });
      req.on("response", (res) => {
        let b = "";
        res.on("data", (c: Buffer) => {
          b += c.toString();
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: b }));
      });
      req.on("error", reject);
      req.write(Buffer.alloc(64 * 1024, 1));
      // The rest goes only once the mod has the first part: a buffering proxy never lets this happen.
      recorder.uploadGate.wait(1).then(() => req.end(Buffer.alloc(8 * 1024 * 1024, 2)));
    });
    expect(res.status).toBe(200);
    expect((JSON.parse(res.body) as Seen).bytes).toBe(64 * 1024 + 8 * 1024 * 1024);
  });

  it("delivers each SSE event of a GET stream as soon as the mod writes it", async () => {
    const events = await new Promise<string[]>((resolve, reject) => {
      const got: string[] = [];
      const req = request(`${router.url}/raw/mcp?scenario=sse&n=4`, {
        headers: { accept: "text/event-stream" },
      });
      req.on("response", (res) => {
        expect(res.headers["content-type"]).toBe("text/event-stream");
        let buf = "";
        res.on("data", (c: Buffer) => {
          buf += c.toString();
          let cut = buf.indexOf("\n\n");
          while (cut >= 0) {
            const event = buf.slice(0, cut);
            buf = buf.slice(cut + 2);
            got.push(event);
            // Releases the mod's next event; without this one delivered, the stream would stall.
            recorder.sseGate.open(got.length);
            cut = buf.indexOf("\n\n");
          }
        });
        res.on("end", () => resolve(got));
      });
      req.on("error", reject);
      req.end();
    });
    expect(events).toEqual([1, 2, 3, 4].map((i) => `id: ${i}\ndata: {"event":${i}}`));
  });

  it("aborts the mod's request when the client disconnects", async () => {
    await new Promise<void>((resolve, reject) => {
      const req = request(`${router.url}/raw/mcp?scenario=sse&n=1&hold=1`, {
        headers: { accept: "text/event-stream" },
      });
      req.on("response", (res) => {
        res.once("data", () => {
          req.destroy();
          resolve();
        });
      });
      req.on("error", (e) => (req.destroyed ? undefined : reject(e)));
      req.end();
    });
    // Resolves only when the mod's side of the stream closes.
    await recorder.sseClosed;
  });
});

describe("binding", () => {
  it("listens on 127.0.0.1 only (the bound address of every listener on its port)", async () => {
    // Reads the sockets' own addresses, so a 0.0.0.0 bind fails even where the machine has no other address.
    await expectLoopbackOnly(router.port);
  });
});
