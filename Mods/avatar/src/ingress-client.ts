/**
 * Calls the YUI app's loopback ingress (docs/signals-ingress.md "The avatar routes"): every answer becomes
 * either the ingress's `{result, ...}` or an IngressError whose message tells the agent what to do.
 */
import { DEFAULT_INGRESS_URL, GESTURE_DEADLINE_MS, MESSAGES, READ_DEADLINE_MS } from "./messages.ts";

/** The ingress could not be used (down, refused, slow, not the ingress). */
export class IngressError extends Error {
  override name = "IngressError";
}

/** The ingress's answer to an avatar route. */
export interface IngressAnswer {
  result: string;
  [field: string]: unknown;
}

/** The hosts the ingress can be reached at: it listens on 127.0.0.1 only (host/ingress, listenLoopback). */
const INGRESS_HOSTS = new Set(["127.0.0.1", "localhost"]);

/**
 * Reads the ingress address from AVATAR_INGRESS_URL (unset or blank: the default). Accepts exactly what
 * MESSAGES.badUrl says: http://, host 127.0.0.1 or localhost (any case), an optional port 1-65535 and
 * path, no user, query or fragment. Answers it without a trailing slash; throws MESSAGES.badUrl otherwise.
 */
export function ingressUrlFrom(env: NodeJS.ProcessEnv): string {
  const raw = env.AVATAR_INGRESS_URL?.trim() || DEFAULT_INGRESS_URL;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new Error(MESSAGES.badUrl(raw));
  }
  const ok =
    u.protocol === "http:" &&
    INGRESS_HOSTS.has(u.hostname) &&
    u.port !== "0" &&
    u.username === "" &&
    u.password === "" &&
    // "http://h/?" parses to an empty search: the raw text decides.
    !raw.includes("?") &&
    !raw.includes("#");
  if (!ok) throw new Error(MESSAGES.badUrl(raw));
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, "")}`;
}

function refused(e: unknown): boolean {
  const code = (e as { cause?: { code?: string } })?.cause?.code;
  return code === "ECONNREFUSED" || code === "ECONNRESET" || code === "EHOSTUNREACH" || code === "ENOTFOUND";
}

/** The ingress's avatar routes from the mod's side. */
export interface IngressClient {
  readonly url: string;
  /** GET a read route (`/avatar/body`, `/avatar/perch-targets`). */
  read(path: string, signal?: AbortSignal): Promise<IngressAnswer>;
  /** POST a gesture with its arguments. */
  gesture(action: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<IngressAnswer>;
}

/** Creates a client for the ingress at `url`. */
export function createIngressClient(url: string): IngressClient {
  const call = async (path: string, init: RequestInit, deadlineMs: number, signal?: AbortSignal) => {
    const deadline = AbortSignal.timeout(deadlineMs);
    // The agent cancelling the tool call hangs up on the ingress, which aborts the gesture in the app.
    const both = signal ? AbortSignal.any([signal, deadline]) : deadline;
    let res: Response;
    let text: string;
    try {
      res = await fetch(`${url}${path}`, { ...init, signal: both });
      text = await res.text();
    } catch (e) {
      if (deadline.aborted) throw new IngressError(MESSAGES.ingressSlow(url, deadlineMs));
      if (signal?.aborted) throw e;
      if (refused(e)) throw new IngressError(MESSAGES.ingressDown(url));
      throw new IngressError(`${MESSAGES.ingressDown(url)} (${(e as Error)?.message ?? e})`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new IngressError(MESSAGES.ingressGarbled(url));
    }
    const obj = (typeof body === "object" && body !== null ? body : {}) as Record<string, unknown>;
    if (!res.ok) {
      if (typeof obj.error !== "string") throw new IngressError(MESSAGES.ingressGarbled(url));
      throw new IngressError(MESSAGES.ingressRefused(res.status, obj.error));
    }
    if (typeof obj.result !== "string") throw new IngressError(MESSAGES.ingressGarbled(url));
    return obj as IngressAnswer;
  };
  return {
    url,
    read: (path, signal) => call(path, { method: "GET" }, READ_DEADLINE_MS, signal),
    gesture: (action, args, signal) =>
      call(
        `/avatar/${action}`,
        { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(args) },
        GESTURE_DEADLINE_MS,
        signal,
      ),
  };
}
