import { bodyStart, errorMessage } from "./stream-helpers.ts";
import type { TurnError } from "./types.ts";

/** A turn-ending failure with a message for the user, and the same failure typed (TurnError). */
export class BackendError extends Error {
  readonly failure: TurnError;
  constructor(
    message: string,
    failure: Omit<TurnError, "message"> = { kind: "backend", detail: message },
    /** The body of an HTTP error answer. */
    readonly body?: string,
  ) {
    super(message);
    this.name = "BackendError";
    this.failure = { ...failure, message };
  }
  get status(): number | undefined {
    return this.failure.status;
  }
}

/** An error the backend reported inside its stream (an error object, `event: error`, response.failed). */
export function streamError(payload: unknown): BackendError {
  const detail = streamErrorMessage(payload);
  return new BackendError(`backend error: ${detail}`, { kind: "backend", detail });
}

/** What an error answer's body says: its JSON error message, or the start of its text. */
export function errorBodyMessage(body: string): string {
  try {
    const j = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    if (typeof j.error === "string") return j.error;
    if (j.error && typeof j.error.message === "string") return j.error.message;
    if (typeof j.message === "string") return j.message;
  } catch {
    /* not JSON: the text itself */
  }
  return bodyStart(body).replace(/…$/, "");
}

/** POSTs a JSON body for a streamed answer; throws BackendError naming the status and the body's start. */
export async function postJson(
  fetchFn: typeof fetch,
  url: string,
  body: unknown,
  headers: Record<string, string>,
  signal: AbortSignal | undefined,
): Promise<Response> {
  let res: Response;
  try {
    res = await fetchFn(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
      body: JSON.stringify(body),
      signal,
    });
  } catch (e) {
    if (signal?.aborted) throw e;
    const cause = (e as { cause?: unknown }).cause;
    const detail = cause ? errorMessage(cause) : errorMessage(e);
    throw new BackendError(`backend unreachable at ${url}: ${detail}`, { kind: "unreachable", url, detail });
  }
  if (!res.ok) {
    const text = await res.text().catch(() => "");
    const reason = res.statusText ? ` ${res.statusText}` : "";
    throw new BackendError(
      `backend answered HTTP ${res.status}${reason}${text ? `: ${bodyStart(text)}` : ""}`,
      { kind: "http", status: res.status, url, detail: errorBodyMessage(text) },
      text,
    );
  }
  if (!res.body)
    throw new BackendError(`backend answered HTTP ${res.status} with no body`, {
      kind: "http",
      status: res.status,
      url,
    });
  return res;
}

/** The message of an error object found inside a stream (`{"error":{...}}`, `event: error`, response.failed). */
export function streamErrorMessage(payload: unknown): string {
  if (payload && typeof payload === "object") {
    const p = payload as Record<string, unknown>;
    const inner = p.error ?? (p.response as Record<string, unknown> | undefined)?.error ?? p;
    if (typeof inner === "string") return inner;
    if (inner && typeof inner === "object") {
      const o = inner as Record<string, unknown>;
      const msg = typeof o.message === "string" ? o.message : JSON.stringify(o);
      const code = typeof o.code === "string" || typeof o.code === "number" ? ` (${o.code})` : "";
      return `${msg}${code}`;
    }
  }
  return typeof payload === "string" ? payload : JSON.stringify(payload);
}

/** Parses an SSE data payload as JSON, or undefined when it is not JSON. */
export function parseData(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
  }
}
