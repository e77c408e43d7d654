// Test helpers for mods (imported as "@yui/mod-kit/testing"): raw node:http requests, since fetch drops a custom Host.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { connect, createServer } from "node:net";
import { networkInterfaces } from "node:os";

/** A port free on 127.0.0.1 right now (bound once by the OS, then released): nothing listens on it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** A raw HTTP exchange's outcome. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends a raw node:http request (fetch would overwrite Host) and collects the whole answer. */
export function rawRequest(
  url: string,
  opts: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawResponse> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname.replace(/^\[|\]$/g, ""),
        port: u.port,
        path: u.pathname + u.search,
        method: opts.method ?? "GET",
        headers: opts.headers,
        setHost: opts.headers?.host === undefined,
      },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

/** A JSON-RPC initialize body, as any 2025-era client sends first. */
export const INITIALIZE_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
});

/** Headers a Streamable HTTP POST needs. */
export const MCP_POST_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

/** One listening TCP socket as the kernel reports it: the address it is bound to. */
export interface TcpListener {
  family: "IPv4" | "IPv6";
  address: string;
}

/** Decodes a /proc/net/tcp{,6} address: 32-bit words in host (little-endian) byte order, hex. */
function decodeProcAddress(hex: string): string {
  const bytes: number[] = [];
  for (let w = 0; w < hex.length; w += 8) {
    const word = hex.slice(w, w + 8);
    for (let b = 6; b >= 0; b -= 2) bytes.push(Number.parseInt(word.slice(b, b + 2), 16));
  }
  if (bytes.length === 4) return bytes.join(".");
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  const full = groups.join(":");
  if (full.startsWith("0:0:0:0:0:ffff:")) return `::ffff:${bytes.slice(12).join(".")}`;
  // The shortest form of the common ones; anything else stays uncompressed (it only goes into a message).
  if (full === "0:0:0:0:0:0:0:0") return "::";
  if (full === "0:0:0:0:0:0:0:1") return "::1";
  return full;
}

/** Linux only: every socket in state LISTEN (0A) on `port`, read from /proc/net/tcp and /proc/net/tcp6 of this
 *  network namespace, so a child process's listeners are seen too. */
export function tcpListeners(port: number): TcpListener[] {
  const found: TcpListener[] = [];
  for (const [file, family] of [
    ["/proc/net/tcp", "IPv4"],
    ["/proc/net/tcp6", "IPv6"],
  ] as const) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue; // a kernel without IPv6 has no tcp6 table
    }
    for (const line of text.split("\n").slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 4 || cols[3] !== "0A") continue;
      const [addr, portHex] = cols[1]!.split(":");
      if (Number.parseInt(portHex!, 16) !== port) continue;
      found.push({ family, address: decodeProcAddress(addr!) });
    }
  }
  return found;
}

/** Resolves "connected" or the connect error's code (ECONNREFUSED, …). */
function tryConnect(host: string, port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host, port });
    s.once("connect", () => {
      s.destroy();
      resolve("connected");
    });
    s.once("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
}

/**
 * Asserts that `port` is listened on at 127.0.0.1 and nowhere else. On Linux it reads the bound address of every
 * listening socket on that port (/proc/net/tcp and tcp6, which covers child processes): a 0.0.0.0, ::, ::1 or any
 * other listener fails, even on a machine with no address but loopback. Elsewhere it falls back to a connect
 * check (127.0.0.1 answers; ::1 and every non-loopback address of this machine refuse), which cannot catch a
 * 0.0.0.0 bind on a machine that has no other address.
 */
export async function expectLoopbackOnly(port: number): Promise<void> {
  if (process.platform === "linux") {
    const listeners = tcpListeners(port);
    const named = listeners.map((l) => (l.family === "IPv6" ? `[${l.address}]` : l.address)).join(", ");
    if (listeners.length === 0) throw new Error(`nothing listens on port ${port}`);
    const loopback = (l: TcpListener) => l.address === "127.0.0.1" || l.address === "::ffff:127.0.0.1";
    if (!listeners.every(loopback)) {
      throw new Error(`port ${port} is listened on at ${named}, not on 127.0.0.1 only`);
    }
    return;
  }
  const reached = await tryConnect("127.0.0.1", port);
  if (reached !== "connected") throw new Error(`nothing answers on 127.0.0.1:${port} (${reached})`);
  const others = Object.values(networkInterfaces())
    .flat()
    .filter((a) => a !== undefined && !a.internal)
    .map((a) => a!.address);
  for (const host of ["::1", ...others]) {
    const r = await tryConnect(host, port);
    if (r === "connected") throw new Error(`port ${port} also answers on ${host}, not on 127.0.0.1 only`);
  }
}

/**
 * Polls `check` every `everyMs` until it answers something other than undefined/false, and returns that;
 * throws after `ms`, naming `what` and the last error `check` threw. For tests that wait on real processes.
 */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false>,
  ms = 15_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + ms;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (e) {
      last = e;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${last}` : ""}`);
}

/** A test X server (Xvfb) and the processes started on it; close() ends them all, the server last. */
export interface XServer {
  /** `:<n>`, the display Xvfb chose itself (-displayfd), so parallel tests never collide. */
  display: string;
  /** The environment for X clients: DISPLAY set, LC_ALL=C.UTF-8 (xprop prints UTF-8 raw), no Wayland. */
  env: NodeJS.ProcessEnv;
  /** Starts an X client on this display; close() ends it if it still runs. */
  start(argv: readonly string[]): ChildProcess;
  /** Starts openbox and resolves once it owns the screen (_NET_SUPPORTING_WM_CHECK set on the root). */
  startOpenbox(): Promise<void>;
  close(): Promise<void>;
}

/** Starts Xvfb with one screen (`WxHxDepth`) and `args` added (e.g. +extension Composite); for X tests. */
export async function startXServer(screen: string, args: readonly string[] = []): Promise<XServer> {
  const children: ChildProcess[] = [];
  const close = async () => {
    for (const c of children.reverse()) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      c.kill("SIGTERM");
      await Promise.race([once(c, "exit"), new Promise((r) => setTimeout(r, 3000))]);
      if (c.exitCode === null && c.signalCode === null) c.kill("SIGKILL");
    }
  };
  // -noreset: monitors defined by `xrandr --setmonitor` outlive the connection that defined them.
  const xvfb = spawn(
    "Xvfb",
    ["-displayfd", "3", "-screen", "0", screen, "-nolisten", "tcp", "-noreset", ...args],
    {
      stdio: ["ignore", "ignore", "ignore", "pipe"],
    },
  );
  children.push(xvfb);
  try {
    const n = await new Promise<string>((resolve, reject) => {
      let text = "";
      (xvfb.stdio[3] as NodeJS.ReadableStream).on("data", (c: Buffer) => {
        text += c.toString();
        if (text.includes("\n")) resolve(text.trim());
      });
      xvfb.once("exit", (code) => reject(new Error(`Xvfb exited with ${code}`)));
      setTimeout(() => reject(new Error("Xvfb did not report a display")), 15_000);
    });
    const display = `:${n}`;
    const env: NodeJS.ProcessEnv = { ...process.env, DISPLAY: display, LC_ALL: "C.UTF-8" };
    delete env.WAYLAND_DISPLAY;
    const start = (argv: readonly string[]) => {
      const c = spawn(argv[0]!, argv.slice(1), { env, stdio: "ignore" });
      children.push(c);
      return c;
    };
    const startOpenbox = async () => {
      start(["openbox", "--sm-disable"]);
      await waitFor("openbox", async () => {
        const { stdout } = await new Promise<{ stdout: string }>((resolve, reject) =>
          execFile("xprop", ["-root", "-notype", "_NET_SUPPORTING_WM_CHECK"], { env }, (err, stdout) =>
            err ? reject(err) : resolve({ stdout }),
          ),
        );
        return /0x[0-9a-f]*[1-9a-f]/.test(stdout);
      });
    };
    return { display, env, start, startOpenbox, close };
  } catch (e) {
    await close();
    throw e;
  }
}
