// The server's side of the file worker (worker.mjs): one long-lived process inside bubblewrap, with
// the same view of the host as `run`, that makes the file tools' system calls. Requests are frames
// with an id, answered in any order; a worker that stops fails its pending calls with a tool error
// and is started again on the next call.
import { type ChildProcess, spawn } from "node:child_process";
import { msg, ToolError } from "../messages.ts";
import type { FileAccess, ReadAnswer, WriteAnswer } from "./access.ts";
import { encodeFrame, FrameReader } from "./frames.mjs";

interface Pending {
  resolve(answer: { value: unknown; payload: Buffer }): void;
  reject(e: Error): void;
}

/** The file tools' calls made by a worker process started with `argv` (a bwrap command line). */
export class FileWorker implements FileAccess {
  private child: ChildProcess | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(
    private readonly argv: readonly string[],
    private readonly env: Record<string, string>,
    private readonly cwd: string,
  ) {}

  /** The running worker, started when there is none. */
  private worker(): ChildProcess {
    if (this.child) return this.child;
    const [file, ...args] = this.argv;
    const child = spawn(file ?? "bwrap", args, {
      cwd: this.cwd,
      env: this.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
    });
    const reader = new FrameReader();
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      for (const { header, payload } of reader.push(chunk)) {
        const id = Number(header.id);
        const p = this.pending.get(id);
        if (!p) continue;
        this.pending.delete(id);
        if (header.ok) p.resolve({ value: header.value, payload });
        else {
          p.reject(Object.assign(new Error(String(header.message)), { code: String(header.code) }));
        }
      }
    });
    child.stderr?.on("data", (c: Buffer) => {
      stderr = (stderr + c).slice(-2000);
    });
    const stopped = (why: string) => {
      if (this.child !== child) return;
      this.child = undefined;
      const e = new ToolError(msg.fileWorkerStopped(why));
      for (const p of this.pending.values()) p.reject(e);
      this.pending.clear();
    };
    child.on("error", (e) => stopped(e.message));
    child.on("exit", (code, signal) => {
      const detail = stderr.trim().split("\n").at(-1) ?? "";
      stopped(`${signal ?? `exit status ${code}`}${detail ? `: ${detail}` : ""}`);
    });
    // A worker that dies mid-write must not take the server down with EPIPE.
    child.stdin?.on("error", () => {});
    this.child = child;
    return child;
  }

  private call(
    header: Record<string, unknown>,
    payload?: Buffer,
  ): Promise<{ value: unknown; payload: Buffer }> {
    if (this.closed) return Promise.reject(new ToolError(msg.fileWorkerStopped("the server is closing")));
    const child = this.worker();
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      child.stdin?.write(encodeFrame({ ...header, id }, payload));
    });
  }

  async realpath(p: string): Promise<string> {
    return String((await this.call({ op: "realpath", path: p })).value);
  }

  async exists(p: string): Promise<boolean> {
    return (await this.call({ op: "exists", path: p })).value === true;
  }

  async read(p: string, max: number): Promise<ReadAnswer> {
    const { value, payload } = await this.call({ op: "read", path: p, max });
    const answer = value as ReadAnswer;
    return answer.kind === "file" ? { kind: "file", data: payload } : answer;
  }

  async write(p: string, data: Buffer): Promise<WriteAnswer> {
    return (await this.call({ op: "write", path: p }, data)).value as WriteAnswer;
  }

  /** The running worker's process id (bwrap's), if one runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Ends the worker (and with it its sandbox); later calls are refused. */
  close(): void {
    this.closed = true;
    const child = this.child;
    if (child?.pid !== undefined) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // Already gone.
      }
    }
  }
}
