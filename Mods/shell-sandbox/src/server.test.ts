// Every tool through the real MCP SDK client over Streamable HTTP on loopback, against the real
// server (the kit's serveMcp) on a real temporary workspace.
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { request } from "node:http";
import { createConnection } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CallToolResult, Client } from "@modelcontextprotocol/client";
import { connectClient, GUARD_REFUSALS } from "@yui/mod-kit";
import { startRouter } from "@yui/router/src/router.ts";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IMAGE_TYPES } from "./files.ts";
import { COMMAND_MAX_BYTES, RUN_OUTPUT_CAP_BYTES, RUN_TIMEOUT_EXIT_CODE } from "./limits.ts";
import { msg } from "./messages.ts";
import { parseDefaultRoute } from "./relay.ts";
import { type SandboxServer, startSandboxServer } from "./server.ts";
import { processesAfterDeath, processesRunning, uniqueSleep } from "./testing/proc.ts";

let base: string;
let root: string;
let outside: string;
let server: SandboxServer;
let client: Client;
let closeClient: () => Promise<void>;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-mcp-")));
  root = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "secret\n");
  // The attack the boundary exists for: a link planted inside the workspace, pointing out.
  await symlink(path.join(outside, "secret.txt"), path.join(root, "planted.txt"));
  await symlink(outside, path.join(root, "planted-dir"));
  server = await startSandboxServer({ workspace: root, port: 0, sandbox: "none", container: false });
  ({ client, close: closeClient } = await connectClient(server.url));
});

afterAll(async () => {
  await closeClient?.();
  await server?.close();
  await rm(base, { recursive: true, force: true });
});

const call = (name: string, args: Record<string, unknown>) =>
  client.callTool({ name, arguments: args }) as Promise<CallToolResult>;

const texts = (r: CallToolResult) => r.content.map((c) => (c.type === "text" ? c.text : `<${c.type}>`));

/** Asserts a tool error with exactly this message. */
async function expectToolError(name: string, args: Record<string, unknown>, message: string) {
  const r = await call(name, args);
  expect(r.isError, JSON.stringify(r)).toBe(true);
  expect(texts(r)).toEqual([message]);
}

describe("shell-sandbox over MCP", () => {
  it("lists exactly the five tools of the spec", async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      "edit_file",
      "read_file",
      "read_image",
      "run",
      "write_file",
    ]);
  });

  describe("run", () => {
    it("returns exit_code, stdout, stderr, truncated and timed_out as structured content and as JSON text", async () => {
      const r = await call("run", { command: "echo out; echo err >&2; exit 7" });
      const want = { exit_code: 7, stdout: "out\n", stderr: "err\n", truncated: false, timed_out: false };
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent).toEqual(want);
      expect(JSON.parse(texts(r)[0] ?? "")).toEqual(want);
    });

    it("truncates at the cap without splitting a UTF-8 character", async () => {
      const r = await call("run", {
        command: `head -c ${RUN_OUTPUT_CAP_BYTES - 1} /dev/zero | tr '\\0' a; printf '\\342\\202\\254 and more'`,
      });
      expect(r.structuredContent).toMatchObject({
        truncated: true,
        stdout: "a".repeat(RUN_OUTPUT_CAP_BYTES - 1),
      });
    });

    it("kills a process group that spawned children at the agent's timeout and keeps what was printed", async () => {
      const s = uniqueSleep();
      const r = await call("run", {
        command: `echo before; sleep ${s} & sleep ${s}; echo never`,
        timeout: 1,
      });
      expect(r.structuredContent).toEqual({
        exit_code: RUN_TIMEOUT_EXIT_CODE,
        stdout: "before\n",
        stderr: "",
        truncated: false,
        timed_out: true,
      });
      expect(await processesAfterDeath(["sleep", s])).toEqual([]);
    });

    it("refuses a timeout above the maximum and an empty command as tool errors", async () => {
      const r = await call("run", { command: "true", timeout: 601 });
      expect(r.isError).toBe(true);
      expect(texts(r).join(" ")).toMatch(/timeout/);
      await expectToolError("run", { command: "" }, msg.commandEmpty());
    });
  });

  describe("file tools", () => {
    it("write_file creates parents, read_file returns the window and how many lines remain", async () => {
      const content = Array.from({ length: 10 }, (_, i) => `row ${i + 1}`).join("\n");
      const w = await call("write_file", { path: "notes/list.txt", content });
      expect(texts(w)).toEqual([msg.wrote(Buffer.byteLength(content), "notes/list.txt")]);
      const r = await call("read_file", { path: "notes/list.txt", offset: 3, limit: 2 });
      expect(texts(r)).toEqual(["row 3\nrow 4\n", msg.windowMore(3, 4, 10)]);
      expect(r.structuredContent).toEqual({
        path: "notes/list.txt",
        from: 3,
        to: 4,
        total_lines: 10,
        remaining_lines: 6,
        next_offset: 5,
      });
      const end = await call("read_file", { path: path.join(root, "notes/list.txt"), offset: 9 });
      expect(texts(end)).toEqual(["row 9\nrow 10", msg.windowEnd(9, 10, 10)]);
    });

    it("edit_file requires a unique match unless replace_all, and says how many it found", async () => {
      await call("write_file", { path: "e.txt", content: "a = 1\nb = 1\n" });
      await expectToolError(
        "edit_file",
        { path: "e.txt", old: "= 1", new: "= 2" },
        msg.manyMatches("e.txt", 2),
      );
      await expectToolError("edit_file", { path: "e.txt", old: "c = 1", new: "c = 2" }, msg.noMatch("e.txt"));
      const one = await call("edit_file", { path: "e.txt", old: "b = 1", new: "b = 3" });
      expect(texts(one)).toEqual([msg.replaced(1, "e.txt")]);
      const all = await call("edit_file", { path: "e.txt", old: " = ", new: ": ", replace_all: true });
      expect(texts(all)).toEqual([msg.replaced(2, "e.txt")]);
      expect(await readFile(path.join(root, "e.txt"), "utf8")).toBe("a: 1\nb: 3\n");
    });

    it("answers bad input with clear tool errors", async () => {
      await mkdir(path.join(root, "adir"), { recursive: true });
      await writeFile(path.join(root, "blob.bin"), Buffer.from([1, 2, 0, 3]));
      await expectToolError("read_file", { path: "missing.txt" }, msg.notFound("missing.txt"));
      await expectToolError("read_file", { path: "adir" }, msg.isDirectory("adir"));
      await expectToolError("read_file", { path: "blob.bin" }, msg.notText("blob.bin"));
      await expectToolError("read_file", { path: "e.txt", offset: 50 }, msg.offsetPastEnd(50, 2));
      const r = await call("read_file", { path: "e.txt", limit: 0 });
      expect(r.isError).toBe(true);
    });

    it("refuses every way out of the workspace and leaves the outside untouched", async () => {
      await expectToolError(
        "read_file",
        { path: "../outside/secret.txt" },
        msg.pathEscapes("../outside/secret.txt"),
      );
      await expectToolError("read_file", { path: "/etc/hostname" }, msg.pathEscapes("/etc/hostname"));
      await expectToolError("read_file", { path: "planted.txt" }, msg.symlinkEscapes("planted.txt"));
      await expectToolError(
        "write_file",
        { path: "planted.txt", content: "x" },
        msg.symlinkEscapes("planted.txt"),
      );
      await expectToolError(
        "write_file",
        { path: "planted-dir/dropped.txt", content: "x" },
        msg.symlinkEscapes("planted-dir/dropped.txt"),
      );
      await expectToolError(
        "edit_file",
        { path: "planted.txt", old: "secret", new: "x" },
        msg.symlinkEscapes("planted.txt"),
      );
      // Through a planted directory link even a missing file is refused, not reported as missing.
      await expectToolError(
        "read_image",
        { path: "planted-dir/x.png" },
        msg.symlinkEscapes("planted-dir/x.png"),
      );
      expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("secret\n");
    });
  });

  describe("a huge bad input", () => {
    it("is quoted in the error text by its first 200 characters and its length, never whole", async () => {
      const escaping = `../${"a".repeat(1_000_000)}`;
      const cut = `../${"a".repeat(197)}…(1000003 characters)`;
      await expectToolError("read_file", { path: escaping }, `path escapes the workspace: ${cut}`);
      await expectToolError(
        "write_file",
        { path: escaping, content: "x" },
        `path escapes the workspace: ${cut}`,
      );
      const long = "b".repeat(1_000_000);
      const r = await call("read_file", { path: long });
      expect(r.isError).toBe(true);
      expect(texts(r)).toEqual([`cannot access ${"b".repeat(200)}…(1000000 characters): ENAMETOOLONG`]);
      await expectToolError(
        "read_image",
        { path: `x.${long}` },
        `unsupported image type ".${"b".repeat(199)}…(1000001 characters)": read_image takes png, jpg, jpeg, gif, webp`,
      );
      const edit = await call("edit_file", { path: `d/${long}`, old: "a", new: "b" });
      expect(texts(edit).join("").length).toBeLessThan(300);
    });

    it("of a command over the kernel's argument limit answers a tool error saying to use a script file", async () => {
      const r = await call("run", { command: `echo ${"x".repeat(200_000)}` });
      expect(r.isError).toBe(true);
      expect(texts(r)).toEqual([msg.commandTooLong(200_005, COMMAND_MAX_BYTES)]);
    });
  });

  describe("read_image", () => {
    it.each(Object.entries(IMAGE_TYPES))("returns a %s file as MCP image content", async (ext, type) => {
      const buf = await sharp({ create: { width: 4, height: 4, channels: 4, background: "#3366cc" } })
        .toFormat(type.format as "png")
        .toBuffer();
      await writeFile(path.join(root, `img${ext}`), buf);
      const r = await call("read_image", { path: `img${ext}` });
      expect(r.isError).toBeFalsy();
      expect(r.content).toEqual([{ type: "image", data: buf.toString("base64"), mimeType: type.mimeType }]);
    });

    it("refuses other types", async () => {
      await writeFile(path.join(root, "img.svg"), "<svg/>");
      await expectToolError("read_image", { path: "img.svg" }, msg.imageType(".svg"));
    });
  });
});

describe("shutdown", () => {
  it("kills every running command when the server closes, so none outlives it", async () => {
    const ws = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-close-")));
    const own = await startSandboxServer({ workspace: ws, port: 0, sandbox: "none", container: false });
    const c = await connectClient(own.url);
    const s = uniqueSleep();
    const pending = c.client.callTool({ name: "run", arguments: { command: `sleep ${s} & sleep ${s}` } });
    pending.catch(() => {}); // the session ends with the server; the answer may never come
    try {
      while ((await processesRunning(["sleep", s])).length < 2) await new Promise((r) => setTimeout(r, 50));
      await own.close();
      expect(await processesAfterDeath(["sleep", s])).toEqual([]);
    } finally {
      await c.close().catch(() => {});
      await rm(ws, { recursive: true, force: true });
    }
  });
});

describe("through the router (/shell/mcp)", () => {
  it("runs a command, reads an image and reports a refusal the same way as directly", async () => {
    const router = await startRouter({
      port: 0,
      upstreams: { shell: { mod: "shell-sandbox", port: server.port } },
    });
    const c = await connectClient(`${router.url}/shell/mcp`);
    try {
      const r = (await c.client.callTool({
        name: "run",
        arguments: { command: "echo via router; exit 4" },
      })) as CallToolResult;
      expect(r.structuredContent).toEqual({
        exit_code: 4,
        stdout: "via router\n",
        stderr: "",
        truncated: false,
        timed_out: false,
      });
      const png = await sharp({ create: { width: 2, height: 2, channels: 3, background: "#000" } })
        .png()
        .toBuffer();
      await writeFile(path.join(root, "routed.png"), png);
      const img = (await c.client.callTool({
        name: "read_image",
        arguments: { path: "routed.png" },
      })) as CallToolResult;
      expect(img.content).toEqual([{ type: "image", data: png.toString("base64"), mimeType: "image/png" }]);
      const refused = (await c.client.callTool({
        name: "read_file",
        arguments: { path: "planted.txt" },
      })) as CallToolResult;
      expect(refused.isError).toBe(true);
      expect(texts(refused)).toEqual([msg.symlinkEscapes("planted.txt")]);
    } finally {
      await c.close();
      await router.close();
    }
  });
});

/** A raw request with chosen Host/Origin headers (fetch cannot set Host). */
function rawPost(port: number, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path: "/mcp",
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.end("{}");
  });
}

/** What a peer bound to `from` gets back for a plain GET through the relay, until it closes (or 5 s). */
function bytesFrom(port: number, from: string): Promise<string> {
  return new Promise((resolve) => {
    let got = "";
    const s = createConnection({ host: "127.0.0.1", port, localAddress: from }, () => {
      s.write("GET /mcp HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
    });
    const timer = setTimeout(() => s.destroy(), 5000);
    s.on("data", (c: Buffer) => {
      got += c;
    });
    s.on("error", () => {});
    s.on("close", () => {
      clearTimeout(timer);
      resolve(got);
    });
  });
}

describe("container mode (the relay in front of the loopback server)", () => {
  it("finds the container's default route and gateway in /proc/net/route", () => {
    const table =
      "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n" +
      "eth0\t00000000\t010012AC\t0003\t0\t0\t0\t00000000\t0\t0\t0\n" +
      "eth0\t000012AC\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n";
    expect(parseDefaultRoute(table)).toEqual({ iface: "eth0", gateway: "172.18.0.1" });
    expect(parseDefaultRoute(table.split("\n").slice(0, 1).join("\n"))).toBeUndefined();
  });

  it("lets only the allowed peer (the gateway, in a container) through the relay", async () => {
    const ws = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-peer-")));
    const boxed = await startSandboxServer(
      { workspace: ws, port: 0, sandbox: "none", container: true },
      { relayHost: "127.0.0.1", relayPeer: (a) => a === "127.0.0.2" },
    );
    try {
      expect(await bytesFrom(boxed.port, "127.0.0.1")).toBe("");
      expect(await bytesFrom(boxed.port, "127.0.0.2")).toMatch(/^HTTP\/1\.1 \d{3} /);
    } finally {
      await boxed.close();
      await rm(ws, { recursive: true, force: true });
    }
  });

  it("serves MCP through the relay and keeps the Host and Origin guard", async () => {
    const ws = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-relay-")));
    const boxed = await startSandboxServer(
      { workspace: ws, port: 0, sandbox: "none", container: true },
      { relayHost: "127.0.0.1" },
    );
    try {
      expect(boxed.port).not.toBe(new URL(boxed.url).port);
      const c = await connectClient(`http://localhost:${boxed.port}/mcp`);
      try {
        const r = (await c.client.callTool({ name: "run", arguments: { command: "pwd" } })) as CallToolResult;
        expect(r.structuredContent).toMatchObject({ exit_code: 0, stdout: `${ws}\n` });
      } finally {
        await c.close();
      }
      expect(await rawPost(boxed.port, { host: "evil.example:9001" })).toBe(GUARD_REFUSALS.host.status);
      expect(await rawPost(boxed.port, { host: "localhost", origin: "http://evil.example" })).toBe(
        GUARD_REFUSALS.origin.status,
      );
    } finally {
      await boxed.close();
      await rm(ws, { recursive: true, force: true });
    }
  });
});

describe("bwrap mode over MCP", () => {
  it("runs commands inside bubblewrap: the workspace writable, the system read-only", async () => {
    const ws = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-bwrap-mcp-")));
    const boxed = await startSandboxServer({ workspace: ws, port: 0, sandbox: "bwrap", container: false });
    const c = await connectClient(boxed.url);
    try {
      const r = (await c.client.callTool({
        name: "run",
        arguments: { command: "echo hi > made.txt; touch /usr/nope; ls /root" },
      })) as CallToolResult;
      const out = r.structuredContent as { exit_code: number; stderr: string };
      expect(out.exit_code).not.toBe(0);
      expect(out.stderr).toMatch(/Read-only file system/);
      expect(out.stderr).toMatch(/cannot access '\/root'/);
      expect(await readFile(path.join(ws, "made.txt"), "utf8")).toBe("hi\n");
      const read = (await c.client.callTool({
        name: "read_file",
        arguments: { path: "made.txt" },
      })) as CallToolResult;
      expect(texts(read)[0]).toBe("hi\n");
    } finally {
      await c.close();
      await boxed.close();
      await rm(ws, { recursive: true, force: true });
    }
  });
});
