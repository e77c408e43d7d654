// The attack the file worker exists for: a command inside the sandbox swaps a workspace directory
// with a symlink to a host directory (renameat2 RENAME_EXCHANGE in a tight loop) while several
// clients hammer every file tool through that directory. Were a file tool to resolve the path on the
// host and open it a moment later, some calls would read, create or change files in the host
// directory, which the sandbox cannot see. Counted here: none may.
import { randomUUID } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, realpath, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/client";
import { connectClient } from "@yui/mod-kit";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SandboxServer, startSandboxServer } from "./server.ts";

const SWAP_SECONDS = 22;
const CLIENTS = 4;

// Exchanges the names "d" (a real directory) and "l" (a symlink to the host directory) for N seconds.
const SWAP_PY = `import ctypes, sys, time
libc = ctypes.CDLL(None, use_errno=True)
end = time.time() + float(sys.argv[1])
n = 0
while time.time() < end:
    if libc.renameat2(-100, b"d", -100, b"l", 2) != 0:
        raise OSError(ctypes.get_errno(), "renameat2")
    n += 1
print(n)
`;

let base: string;
let ws: string;
let host: string;
let server: SandboxServer;
const marker = `HOST-SECRET-${randomUUID()}`;
let hostPng: Buffer;

const png = (colour: string) =>
  sharp({ create: { width: 2, height: 2, channels: 3, background: colour } })
    .png()
    .toBuffer();

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-race-")));
  ws = path.join(base, "ws");
  host = path.join(base, "host");
  await mkdir(path.join(ws, "d"), { recursive: true });
  await mkdir(host);
  hostPng = await png("#ff0000");
  await writeFile(path.join(host, "secret.txt"), `${marker}\n`);
  await writeFile(path.join(host, "edit.txt"), "state-a\n");
  await writeFile(path.join(host, "pic.png"), hostPng);
  await writeFile(path.join(ws, "d", "secret.txt"), "workspace copy\n");
  await writeFile(path.join(ws, "d", "edit.txt"), "state-a\n");
  await writeFile(path.join(ws, "d", "pic.png"), await png("#0000ff"));
  await symlink(host, path.join(ws, "l"));
  await writeFile(path.join(ws, "swap.py"), SWAP_PY);
  server = await startSandboxServer({
    workspace: ws,
    port: 0,
    sandbox: "bwrap",
    network: "none",
    container: false,
  });
});

afterAll(async () => {
  await server?.close();
  await rm(base, { recursive: true, force: true });
});

interface Tally {
  calls: number;
  readsOk: number;
  hostReads: number;
  hostImages: number;
}

/** One client calling every file tool on d/... until `stop` says so. */
async function hammer(n: number, stop: { done: boolean }, tally: Tally): Promise<void> {
  const c = await connectClient(server.url);
  const call = (name: string, args: Record<string, unknown>) =>
    c.client.callTool({ name, arguments: args }) as Promise<CallToolResult>;
  try {
    for (let i = 0; !stop.done; i++) {
      const read = await call("read_file", { path: "d/secret.txt" });
      const text = read.content.map((b) => (b.type === "text" ? b.text : "")).join("");
      if (!read.isError) tally.readsOk++;
      if (text.includes(marker)) tally.hostReads++;
      await call("write_file", { path: `d/new-${n}-${i}.txt`, content: "x" });
      const flip = i % 2 === 0;
      await call("edit_file", {
        path: "d/edit.txt",
        old: flip ? "state-a" : "state-b",
        new: flip ? "state-b" : "state-a",
      });
      const img = await call("read_image", { path: "d/pic.png" });
      const first = img.content[0];
      if (first?.type === "image" && first.data === hostPng.toString("base64")) tally.hostImages++;
      tally.calls += 4;
    }
  } finally {
    await c.close();
  }
}

describe("file tools against a symlink swap loop inside the sandbox", () => {
  it(`for ${SWAP_SECONDS} s with ${CLIENTS} clients: no host file read, created or changed`, async () => {
    const before = await stat(path.join(host, "edit.txt"));
    const runner = await connectClient(server.url);
    const stop = { done: false };
    const tally: Tally = { calls: 0, readsOk: 0, hostReads: 0, hostImages: 0 };
    try {
      const swap = (
        runner.client.callTool({
          name: "run",
          arguments: { command: `python3 swap.py ${SWAP_SECONDS}`, timeout: SWAP_SECONDS + 60 },
        }) as Promise<CallToolResult>
      ).finally(() => {
        stop.done = true;
      });
      const clients = Array.from({ length: CLIENTS }, (_, n) => hammer(n, stop, tally));
      const swapped = await swap;
      await Promise.all(clients);
      const out = swapped.structuredContent as { exit_code: number; stdout: string; stderr: string };
      // The loop really ran, and the tools really worked on the directory in between.
      expect(out.exit_code, out.stderr).toBe(0);
      expect(Number(out.stdout.trim())).toBeGreaterThan(10_000);
      expect(tally.readsOk).toBeGreaterThan(20);
      expect(tally.calls).toBeGreaterThan(200);
    } finally {
      stop.done = true;
      await runner.close();
    }
    const hostFiles = (await readdir(host)).sort();
    console.log(
      `race: ${tally.calls} file tool calls, ${tally.readsOk} reads answered; reached the host: ` +
        `${tally.hostReads} text reads, ${tally.hostImages} image reads, ${hostFiles.length - 3} files created`,
    );
    expect(tally.hostReads).toBe(0);
    expect(tally.hostImages).toBe(0);
    expect(hostFiles).toEqual(["edit.txt", "pic.png", "secret.txt"]);
    expect(await readFile(path.join(host, "edit.txt"), "utf8")).toBe("state-a\n");
    expect(await readFile(path.join(host, "secret.txt"), "utf8")).toBe(`${marker}\n`);
    expect((await stat(path.join(host, "edit.txt"))).mtimeMs).toBe(before.mtimeMs);
  }, 180_000);
});
