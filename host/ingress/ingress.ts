/**
 * The host's loopback ingress (docs/signals-ingress.md "Signals"): `POST /signals` for mods' wake signals
 * and the avatar routes for the avatar mod, on 127.0.0.1, bound only while `yui.agent_notify` is on.
 */

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  BodyAbortedError,
  BodyNotJsonError,
  BodyTooLargeError,
  listenLoopback,
  loopbackGuard,
  parseJsonBody,
  readBody,
  sendJson,
  sendJsonError,
} from "@yui/mod-kit";
import type { AvatarExecutor } from "../../src/protocol/body.ts";
import { AGENT_NOTIFY_KEY, AgentNotifySchema } from "../../src/protocol/store-keys.ts";
import { requestUrl, trackSockets } from "../net.ts";
import type { Store } from "../store/store.ts";
import {
  AVATAR_READS,
  type AvatarTimeouts,
  DEFAULT_AVATAR_TIMEOUTS,
  gestureOf,
  isBodyActionResult,
  parseGesture,
  withDeadline,
} from "./avatar-routes.ts";
import { DEFAULT_INGRESS_PORT, INGRESS_ERRORS, MAX_BODY_BYTES } from "./messages.ts";
import {
  type CoalesceLimits,
  createCoalescer,
  DEFAULT_LIMITS,
  type IngressSignal,
  parseSignal,
} from "./signals.ts";

export { AGENT_NOTIFY_KEY } from "../../src/protocol/store-keys.ts";
export { DEFAULT_INGRESS_PORT, INGRESS_ERRORS, SIGNAL_EVENT } from "./messages.ts";
export type { IngressSignal } from "./signals.ts";

export interface IngressOptions {
  /** 127.0.0.1:<port>; 0 picks a free one (tests). Default 8770. */
  port?: number;
  /** Receives each handed-on signal (after the post was answered). */
  onSignal: (s: IngressSignal) => void | Promise<void>;
  /** Main's avatar executor, read at call time; null while there is none. */
  executor: () => AvatarExecutor | null;
  /** Coalescing limits (tests shorten them). */
  limits?: Partial<CoalesceLimits>;
  /** Gesture / read deadlines (tests shorten them). */
  timeouts?: Partial<AvatarTimeouts>;
}

/** A bound ingress. */
export interface RunningIngress {
  url: string;
  port: number;
  close(): Promise<void>;
}

/** The port is taken by another process. */
export class IngressPortInUseError extends Error {
  override name = "IngressPortInUseError";
  constructor(readonly port: number) {
    super(`port ${port} on 127.0.0.1 is taken`);
  }
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads a JSON body (undefined when empty) up to MAX_BODY_BYTES; throws the kit's BodyTooLargeError or
 * BodyNotJsonError, or HttpError 415 for a body that is not typed as JSON.
 */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const raw = await readBody(req, { limit: MAX_BODY_BYTES });
  if (raw.length === 0) return undefined;
  // Only JSON: a page cannot send it cross-site without a CORS preflight, which nothing here answers.
  const type = String(req.headers["content-type"] ?? "")
    .split(";")[0]!
    .trim()
    .toLowerCase();
  if (type !== "application/json") throw new HttpError(415, INGRESS_ERRORS.contentType);
  return parseJsonBody(raw);
}

/** Binds the ingress on 127.0.0.1; rejects with IngressPortInUseError when the port is taken. */
export async function startIngress(opts: IngressOptions): Promise<RunningIngress> {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const timeouts = { ...DEFAULT_AVATAR_TIMEOUTS, ...opts.timeouts };
  // Hand-on runs after the post's answer is written: a post never waits for the app's handler.
  let closed = false;
  const deliver = (s: IngressSignal) =>
    setImmediate(() => {
      if (closed) return; // the switch went off between the hand-on and this tick
      Promise.resolve()
        .then(() => opts.onSignal(s))
        .catch((e: unknown) => console.error(`[ingress] onSignal failed: ${(e as Error)?.message ?? e}`));
    });
  const coalescer = createCoalescer(deliver, limits);

  const signals = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readJson(req);
    const parsed = parseSignal(body === undefined ? {} : body, new Date());
    if (typeof parsed === "string") return sendJson(res, 400, { error: parsed });
    const offer = coalescer.offer(parsed);
    if (offer === "full") return sendJson(res, 429, { error: INGRESS_ERRORS.tooManyHeld });
    sendJson(res, 202, { accepted: true, held: offer === "held" });
  };

  const avatar = async (req: IncomingMessage, res: ServerResponse, path: string, hangUp: AbortSignal) => {
    const read = AVATAR_READS[path as keyof typeof AVATAR_READS];
    const gesture = gestureOf(path);
    if (!read && !gesture) return sendJson(res, 404, { error: INGRESS_ERRORS.notFound });
    if ((read && req.method !== "GET") || (gesture && req.method !== "POST")) {
      res.setHeader("allow", read ? "GET" : "POST");
      return sendJson(res, 405, { error: INGRESS_ERRORS.method });
    }
    let args: ReturnType<typeof parseGesture> | undefined;
    if (gesture) {
      args = parseGesture(gesture, await readJson(req));
      if (typeof args === "string") return sendJson(res, 400, { error: args });
    }
    const ex = opts.executor();
    if (!ex) return sendJson(res, 200, { result: "unsupported" });
    try {
      if (read) {
        const value = await withDeadline(timeouts.readMs, hangUp, () => read.read(ex));
        if (value === "timeout") return sendJson(res, 200, { result: "timeout" });
        return sendJson(res, 200, { result: "ok", [read.field]: value });
      }
      const given = args as Exclude<typeof args, string | undefined>;
      const result = await withDeadline(timeouts.gestureMs, hangUp, (signal) => ex.bodyAction(given, signal));
      if (!isBodyActionResult(result))
        throw new Error(`answered ${JSON.stringify(result)}, not a result word`);
      sendJson(res, 200, { result });
    } catch (e) {
      sendJson(res, 500, { error: INGRESS_ERRORS.executorFailed((e as Error)?.message ?? String(e)) });
    }
  };

  const server = createServer((req, res) => {
    if (!loopbackGuard(req, res)) return;
    // A target that is not a path of ours (`//`, `*`) is simply not found: `new URL` threw on it, ending the host.
    const path = requestUrl(req)?.pathname ?? "";
    // A caller that hangs up before its answer aborts the executor's work.
    const hangUp = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) hangUp.abort();
    });
    const route = async () => {
      if (path === "/signals") {
        if (req.method !== "POST") {
          res.setHeader("allow", "POST");
          return sendJson(res, 405, { error: INGRESS_ERRORS.method });
        }
        return signals(req, res);
      }
      if (path.startsWith("/avatar/")) return avatar(req, res, path, hangUp.signal);
      sendJson(res, 404, { error: INGRESS_ERRORS.notFound });
    };
    route().catch((e: unknown) => {
      if (res.headersSent || e instanceof BodyAbortedError) return;
      // The rest of an oversized body is not read: close the connection after the answer.
      if (e instanceof BodyTooLargeError)
        return sendJsonError(res, 413, INGRESS_ERRORS.tooLarge(e.limit), { connection: "close" });
      if (e instanceof BodyNotJsonError) return sendJsonError(res, 400, INGRESS_ERRORS.notJson);
      if (e instanceof HttpError) return sendJsonError(res, e.status, e.message);
      sendJsonError(res, 500, String((e as Error)?.message ?? e));
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 120_000;
  const sockets = trackSockets(server);

  const want = opts.port ?? DEFAULT_INGRESS_PORT;
  try {
    await listenLoopback(server, want);
  } catch (e) {
    coalescer.close();
    if ((e as { code?: string }).code === "EADDRINUSE") throw new IngressPortInUseError(want);
    throw e;
  }
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        closed = true;
        coalescer.close();
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
      return closing;
    },
  };
}

/** What followAgentNotify needs of the store. */
export type SwitchStore = Pick<Store, "get" | "onChange">;

/** The ingress following the switch. */
export interface AgentNotifyBinding {
  /** The ingress bound now, or null while the switch is off (or its port was taken). */
  current(): RunningIngress | null;
  /** Resolves once the latest switch change has been applied (tests, shutdown). */
  settled(): Promise<void>;
  /** Stops following the switch and unbinds. */
  close(): Promise<void>;
}

/** Binds the ingress while `yui.agent_notify` is on, rebinds on a new port, unbinds when it goes off. */
export function followAgentNotify(
  store: SwitchStore,
  opts: Omit<IngressOptions, "port"> & { log?: (line: string) => void },
): AgentNotifyBinding {
  const log = opts.log ?? ((line: string) => console.error(line));
  let running: { ingress: RunningIngress; want: number } | null = null;
  let closed = false;
  let chain: Promise<void> = Promise.resolve();

  const wanted = (): number | null => {
    const v = AgentNotifySchema.safeParse(store.get(AGENT_NOTIFY_KEY));
    if (closed || !v.success || !v.data.enabled) return null;
    return v.data.port ?? DEFAULT_INGRESS_PORT;
  };
  const apply = async () => {
    const want = wanted();
    if (running && running.want === want) return;
    if (running) {
      await running.ingress.close();
      running = null;
      if (want === null) log("[ingress] closed (agent-notify off)");
    }
    if (want === null) return;
    try {
      const ingress = await startIngress({ ...opts, port: want });
      running = { ingress, want };
      log(`[ingress] listening on ${ingress.url} (agent-notify on)`);
    } catch (e) {
      log(
        e instanceof IngressPortInUseError
          ? `[ingress] port ${want} on 127.0.0.1 is taken: agent-notify stays off until its port or the switch changes`
          : `[ingress] could not bind port ${want}: ${(e as Error)?.message ?? e}`,
      );
    }
  };
  // Changes apply one at a time, in order, so a quick off/on never leaves two servers.
  const reconcile = () => {
    chain = chain.then(apply, apply);
    return chain;
  };
  const off = store.onChange((c) => {
    if (c.key === AGENT_NOTIFY_KEY) void reconcile();
  });
  void reconcile();
  return {
    current: () => running?.ingress ?? null,
    settled: () => chain,
    close() {
      closed = true;
      off();
      return reconcile();
    },
  };
}
