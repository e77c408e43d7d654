// The file worker for real: bubblewrap, the bare node binary and worker.mjs, spoken to in frames.
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { msg } from "../messages.ts";
import { commandEnv, SANDBOX_PATH, workerArgv } from "../sandbox.ts";
import { encodeFrame, FrameReader } from "./frames.mjs";
import { FileWorker } from "./worker.ts";

let base: string;
let ws: string;
let worker: FileWorker;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-worker-")));
  ws = path.join(base, "ws");
  await mkdir(ws);
  await writeFile(path.join(base, "host.txt"), "host\n");
  worker = new FileWorker(workerArgv(ws), commandEnv({ workspace: ws, path: SANDBOX_PATH }), ws);
});

afterAll(async () => {
  worker?.close();
  await rm(base, { recursive: true, force: true });
});

describe("frames", () => {
  it("come through whole however the stream is cut", () => {
    const big = Buffer.alloc(300_000, 7);
    const wire = Buffer.concat([encodeFrame({ id: 1 }, big), encodeFrame({ id: 2, ok: true })]);
    const reader = new FrameReader();
    const got = [];
    for (let i = 0; i < wire.length; i += 4093) got.push(...reader.push(wire.subarray(i, i + 4093)));
    expect(got.map((f) => f.header)).toEqual([{ id: 1 }, { id: 2, ok: true }]);
    expect(Buffer.compare(got[0]?.payload ?? Buffer.alloc(0), big)).toBe(0);
    expect(got[1]?.payload.length).toBe(0);
  });
});

describe("FileWorker", () => {
  it("writes and reads back a large file byte for byte, inside the workspace", async () => {
    const data = Buffer.alloc(5 * 1024 * 1024, "é");
    expect(await worker.write(path.join(ws, "sub", "big.txt"), data)).toEqual({ kind: "file" });
    const back = await worker.read(path.join(ws, "sub", "big.txt"), 10 * 1024 * 1024);
    expect(back.kind).toBe("file");
    expect(back.kind === "file" && Buffer.compare(back.data, data)).toBe(0);
    expect(await worker.read(path.join(ws, "sub"), 10)).toEqual({ kind: "dir" });
    expect(await worker.read(path.join(ws, "sub", "big.txt"), 10)).toEqual({
      kind: "large",
      size: data.length,
    });
  });

  it("sees only the sandbox: a host file beside the workspace does not exist for it", async () => {
    await symlink(path.join(base, "host.txt"), path.join(ws, "out"));
    expect(await worker.exists(path.join(ws, "out"))).toBe(true);
    await expect(worker.realpath(path.join(ws, "out"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(worker.read(path.join(base, "host.txt"), 100)).rejects.toMatchObject({ code: "ENOENT" });
    expect(await readFile(path.join(base, "host.txt"), "utf8")).toBe("host\n");
  });

  it("fails pending calls with a tool error when the worker dies, and starts again on the next call", async () => {
    const own = new FileWorker(workerArgv(ws), commandEnv({ workspace: ws, path: SANDBOX_PATH }), ws);
    try {
      expect(await own.realpath(ws)).toBe(ws);
      const pending = own.read(path.join(ws, "sub", "big.txt"), 10 * 1024 * 1024);
      own.close();
      await expect(pending).rejects.toThrow(/^the file tools' sandboxed worker stopped \(SIGKILL\)/);
      await expect(own.realpath(ws)).rejects.toThrow(msg.fileWorkerStopped("the server is closing"));
    } finally {
      own.close();
    }
    const again = new FileWorker(workerArgv(ws), commandEnv({ workspace: ws, path: SANDBOX_PATH }), ws);
    try {
      expect(await again.realpath(ws)).toBe(ws);
      // Killed from outside (not closed): the next call starts a new worker.
      process.kill(-(again.pid ?? 0), "SIGKILL");
      // Once the server has seen it end (a call made meanwhile fails with "stopped"; try again).
      while (again.pid !== undefined) await new Promise((r) => setTimeout(r, 20));
      expect(await again.realpath(ws)).toBe(ws);
    } finally {
      again.close();
    }
  });
});
