import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { connectClient, GUARD_REFUSALS, LAUNCH_MESSAGES, type ServedMcp, serveMcp } from "@yui/mod-kit";
import {
  expectLoopbackOnly,
  freePort,
  INITIALIZE_BODY,
  MCP_POST_HEADERS,
  rawRequest,
} from "@yui/mod-kit/testing";
import { startRouter } from "@yui/router/src/router.ts";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type RunningIngress, startIngress } from "../../../host/ingress/ingress.ts";
import { queueHangingGesture, scriptedExecutor } from "../../../host/ingress/testing.ts";
import { createIngressClient, ingressUrlFrom } from "./ingress-client.ts";
import { MESSAGES, REASONS } from "./messages.ts";
import { buildServer } from "./server.ts";

const BODY = {
  window: { x: 1200, y: 640, w: 300, h: 500 },
  monitor: 0,
  posture: "sitting",
  perched_on: { app: "Terminal", title: "zsh" },
  vrm: "yui.vrm",
  moving: false,
};
const PERCH = {
  windows: [
    { app: "Terminal", title: "zsh", rect: { x: 0, y: 0, w: 800, h: 600 } },
    { app: null, title: null, rect: { x: 900, y: 100, w: 400, h: 300 } },
  ],
  peek_edges: [{ side: "left", x: 0 }],
};
const TOOLS = [
  "get_body_state",
  "list_perch_targets",
  "sit_on_window",
  "peek",
  "move_to",
  "stand",
  "go_to_bed",
];

const text = (r: CallToolResult) =>
  r.content.map((c) => (c.type === "text" ? c.text : `<${c.type}>`)).join("");

const ex = scriptedExecutor(BODY, PERCH);
let present = true;
let ingress: RunningIngress;
let mod: ServedMcp;
let client: Awaited<ReturnType<typeof connectClient>>;

beforeAll(async () => {
  ingress = await startIngress({
    port: 0,
    onSignal: () => {},
    executor: () => (present ? ex : null),
    timeouts: { gestureMs: 1_000 },
  });
  mod = await serveMcp({
    name: "avatar",
    version: "0",
    port: 0,
    build: () => buildServer(createIngressClient(ingress.url)),
  });
  client = await connectClient(mod.url);
});
afterAll(async () => {
  await client.close();
  await mod.close();
  await ingress.close();
});

const call = (name: string, args: Record<string, unknown> = {}) =>
  client.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

describe("the avatar tools against the real ingress", () => {
  it("lists exactly the spec's seven tools", async () => {
    const { tools } = await client.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...TOOLS].sort());
  });

  it("get_body_state and list_perch_targets answer the executor's state as JSON", async () => {
    const body = await call("get_body_state");
    expect(body.isError).toBeFalsy();
    expect(body.structuredContent).toEqual(BODY);
    expect(JSON.parse(text(body))).toEqual(BODY);
    const perch = await call("list_perch_targets");
    expect(perch.structuredContent).toEqual(PERCH);
  });

  it("every gesture reaches the executor with its arguments and answers ok", async () => {
    ex.calls.length = 0;
    const results = [
      await call("sit_on_window", { app: "Terminal" }),
      await call("peek", { side: "right" }),
      await call("move_to", { spot: "bottom_left", monitor: 1 }),
      await call("move_to", { spot: "center", monitor: null }),
      await call("move_to", { spot: "top_left" }),
      await call("stand"),
      await call("go_to_bed"),
    ];
    expect(results.map((r) => [r.isError ?? false, text(r)])).toEqual(Array(7).fill([false, "ok"]));
    expect(ex.calls.map((c) => c.args)).toEqual([
      { action: "sit_on_window", app: "Terminal" },
      { action: "peek", side: "right" },
      { action: "move_to", spot: "bottom_left", monitor: 1 },
      { action: "move_to", spot: "center" },
      { action: "move_to", spot: "top_left" },
      { action: "stand" },
      { action: "go_to_bed" },
    ]);
  });

  for (const reason of REASONS.filter((r) => r !== "timeout")) {
    it(`a gesture answered ${reason} is a tool error carrying that word`, async () => {
      ex.script.push(reason);
      const r = await call("sit_on_window", { app: "Safari" });
      expect(r.isError).toBe(true);
      expect(text(r)).toBe(reason);
    });
  }

  it("a gesture the app does not finish in time is a tool error carrying timeout, and the app's gesture is aborted", async () => {
    const hang = queueHangingGesture(ex, "interrupted");
    const r = await call("go_to_bed");
    expect([r.isError, text(r)]).toEqual([true, "timeout"]);
    expect(hang.signal()?.aborted).toBe(true);
  });

  it("cancelling the tool call aborts the gesture in the app", async () => {
    const hang = queueHangingGesture(ex, "ok");
    const ac = new AbortController();
    const pending = client.client.callTool({ name: "stand", arguments: {} }, { signal: ac.signal }).then(
      () => "answered",
      () => "cancelled",
    );
    await hang.started;
    ac.abort();
    expect(await pending).toBe("cancelled");
    await vi.waitFor(() => expect(hang.signal()?.aborted).toBe(true));
  });

  it("without an executor in the app every tool is a tool error carrying unsupported", async () => {
    present = false;
    try {
      for (const [name, args] of [
        ["get_body_state", {}],
        ["list_perch_targets", {}],
        ["peek", { side: "left" }],
        ["go_to_bed", {}],
      ] as const) {
        const r = await call(name, args);
        expect([name, r.isError, text(r)]).toEqual([name, true, "unsupported"]);
      }
    } finally {
      present = true;
    }
  });

  it("refuses bad arguments naming the field, without reaching the app", async () => {
    const before = ex.calls.length;
    for (const [name, args, field] of [
      ["peek", { side: "up" }, "side"],
      ["move_to", { spot: "middle" }, "spot"],
      ["move_to", { spot: "center", monitor: -1 }, "monitor"],
      ["sit_on_window", {}, "app"],
      ["sit_on_window", { app: "" }, "app"],
    ] as const) {
      const r = await call(name, args);
      expect(r.isError).toBe(true);
      expect(text(r)).toContain(field);
    }
    expect(ex.calls.length).toBe(before);
  });
});

describe("a 1 MB argument", () => {
  it("is refused by the schema naming the field, quoting none of it, without reaching the app", async () => {
    const big = "z".repeat(1 << 20);
    const before = ex.calls.length;
    for (const [name, args, field] of [
      ["sit_on_window", { app: big }, "app"],
      ["peek", { side: big }, "side"],
      ["move_to", { spot: big }, "spot"],
    ] as const) {
      const r = await call(name, args);
      expect(r.isError).toBe(true);
      expect(text(r).length).toBeLessThan(400);
      expect(text(r)).toContain(field);
      expect(text(r)).not.toContain("zzzz");
    }
    expect(ex.calls.length).toBe(before);
  });
});

describe("an unusable ingress", () => {
  const withIngressAt = async (url: string, fn: (c: typeof client) => Promise<void>) => {
    const served = await serveMcp({
      name: "avatar",
      version: "0",
      port: 0,
      build: () => buildServer(createIngressClient(url)),
    });
    const c = await connectClient(served.url);
    try {
      await fn(c);
    } finally {
      await c.close();
      await served.close();
    }
  };

  it("that is not listening gives a tool error saying the app must run with agent-notify on", async () => {
    const url = `http://127.0.0.1:${await freePort()}`;
    await withIngressAt(url, async (c) => {
      for (const [name, args] of [
        ["get_body_state", {}],
        ["stand", {}],
      ] as const) {
        const r = (await c.client.callTool({ name, arguments: args })) as CallToolResult;
        expect([r.isError, text(r)]).toEqual([true, MESSAGES.ingressDown(url)]);
      }
    });
    expect(MESSAGES.ingressDown(url)).toContain("agent-notify on");
  });

  it("addressed with a wrong path gives the ingress's own refusal", async () => {
    await withIngressAt(`${ingress.url}/yui`, async (c) => {
      const r = (await c.client.callTool({ name: "stand", arguments: {} })) as CallToolResult;
      expect([r.isError, text(r)]).toEqual([true, MESSAGES.ingressRefused(404, "not found")]);
    });
  });

  it("whose refusal quotes a huge value gives a tool error quoting at most 200 characters of it", async () => {
    const big = "w".repeat(1 << 20);
    const echo = createServer((_req, res) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: `no window of app ${big}` }));
    });
    const port = await new Promise<number>((r) =>
      echo.listen(0, "127.0.0.1", () => r((echo.address() as { port: number }).port)),
    );
    try {
      await withIngressAt(`http://127.0.0.1:${port}`, async (c) => {
        const r = (await c.client.callTool({ name: "stand", arguments: {} })) as CallToolResult;
        expect(r.isError).toBe(true);
        expect(text(r)).toBe(
          `the YUI app's ingress answered 400: no window of app ${"w".repeat(183)}…(${big.length + 17} characters)`,
        );
      });
    } finally {
      await new Promise((r) => echo.close(r));
    }
  });

  it("that is some other service gives a tool error saying so", async () => {
    const other = createServer((_req, res) => res.end("<html>hello</html>"));
    const port = await new Promise<number>((r) =>
      other.listen(0, "127.0.0.1", () => r((other.address() as { port: number }).port)),
    );
    const url = `http://127.0.0.1:${port}`;
    try {
      await withIngressAt(url, async (c) => {
        const r = (await c.client.callTool({ name: "list_perch_targets", arguments: {} })) as CallToolResult;
        expect([r.isError, text(r)]).toEqual([true, MESSAGES.ingressGarbled(url)]);
      });
    } finally {
      await new Promise((r) => other.close(r));
    }
  });
});

describe("AVATAR_INGRESS_URL's accepted forms", () => {
  it("each reach the real ingress", async () => {
    const port = new URL(ingress.url).port;
    for (const value of [
      `http://localhost:${port}`,
      `http://127.0.0.1:${port}/`,
      `HTTP://LOCALHOST:${port}/`,
    ]) {
      const ic = createIngressClient(ingressUrlFrom({ AVATAR_INGRESS_URL: value }));
      expect(await ic.read("/avatar/body"), value).toMatchObject({ result: "ok", body: BODY });
    }
  });
});

describe("exposure", () => {
  it("the mod refuses a non-loopback Host with 421 and a non-loopback Origin with 403", async () => {
    const host = await rawRequest(mod.url, {
      method: "POST",
      headers: { ...MCP_POST_HEADERS, host: "evil.example:9002" },
      body: INITIALIZE_BODY,
    });
    expect([host.status, JSON.parse(host.body).error.message]).toEqual([
      GUARD_REFUSALS.host.status,
      GUARD_REFUSALS.host.message,
    ]);
    const origin = await rawRequest(mod.url, {
      method: "POST",
      headers: { ...MCP_POST_HEADERS, origin: "https://evil.example" },
      body: INITIALIZE_BODY,
    });
    expect([origin.status, JSON.parse(origin.body).error.message]).toEqual([
      GUARD_REFUSALS.origin.status,
      GUARD_REFUSALS.origin.message,
    ]);
  });

  it("works through the router under the prefix avatar", async () => {
    const router = await startRouter({ port: 0, upstreams: { avatar: { mod: "avatar", port: mod.port } } });
    const c = await connectClient(`${router.url}/avatar/mcp`);
    try {
      ex.calls.length = 0;
      ex.script.push("busy");
      const state = (await c.client.callTool({ name: "get_body_state", arguments: {} })) as CallToolResult;
      expect(state.structuredContent).toEqual(BODY);
      const sit = (await c.client.callTool({
        name: "sit_on_window",
        arguments: { app: "Notes" },
      })) as CallToolResult;
      expect([sit.isError, text(sit)]).toEqual([true, "busy"]);
      const moved = (await c.client.callTool({
        name: "move_to",
        arguments: { spot: "center" },
      })) as CallToolResult;
      expect([moved.isError ?? false, text(moved)]).toEqual([false, "ok"]);
      expect(ex.calls.map((x) => x.args.action)).toEqual(["sit_on_window", "move_to"]);
    } finally {
      await c.close();
      await router.close();
    }
  });
});

describe("the command line", () => {
  const start = (args: string[], env: Record<string, string>) =>
    spawn(process.execPath, ["--import", "tsx", "src/main.ts", ...args], {
      cwd: new URL("..", import.meta.url).pathname,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
  const output = (p: ReturnType<typeof start>) => {
    let out = "";
    p.stdout.on("data", (d) => {
      out += d;
    });
    p.stderr.on("data", (d) => {
      out += d;
    });
    return () => out;
  };

  it("serves on --port and calls the ingress named by AVATAR_INGRESS_URL", async () => {
    const port = await freePort();
    const p = start(["--port", String(port)], { AVATAR_INGRESS_URL: `${ingress.url}/` });
    const out = output(p);
    try {
      await vi.waitFor(
        () => expect(out()).toContain(`[avatar] calling the YUI app's ingress at ${ingress.url}\n`),
        {
          timeout: 30_000,
          interval: 100,
        },
      );
      expect(out()).toContain(`[avatar] MCP on http://127.0.0.1:${port}/mcp`);
      await expectLoopbackOnly(port);
      const c = await connectClient(`http://127.0.0.1:${port}/mcp`);
      try {
        const r = (await c.client.callTool({ name: "get_body_state", arguments: {} })) as CallToolResult;
        expect(r.structuredContent).toEqual(BODY);
      } finally {
        await c.close();
      }
    } finally {
      p.kill("SIGTERM");
      await new Promise((r) => p.once("exit", r));
    }
  });

  it("exits 1 with one line on stderr, no stack, when its port is taken", async () => {
    const held = createServer();
    const port = await new Promise<number>((r) =>
      held.listen(0, "127.0.0.1", () => r((held.address() as { port: number }).port)),
    );
    try {
      const p = start(["--port", String(port)], {});
      let stderr = "";
      p.stderr.on("data", (d) => {
        stderr += d;
      });
      const code = await new Promise((r) => p.once("close", r));
      expect(code).toBe(1);
      expect(stderr).toBe(`${LAUNCH_MESSAGES.portInUse(port)}\n`);
      expect(stderr).toBe(
        `error: port ${port} on 127.0.0.1 is already in use; choose another with --port N\n`,
      );
      expect(stderr).not.toMatch(/^\s+at /m);
    } finally {
      await new Promise((r) => held.close(r));
    }
  });

  it("exits 2 with a clear message for an AVATAR_INGRESS_URL that is not an http URL", async () => {
    const p = start([], { AVATAR_INGRESS_URL: "ftp://127.0.0.1:8770" });
    const out = output(p);
    const code = await new Promise((r) => p.once("close", r));
    expect(code).toBe(2);
    expect(out()).toBe(`[avatar] ${MESSAGES.badUrl("ftp://127.0.0.1:8770")}\n`);
  });
});
