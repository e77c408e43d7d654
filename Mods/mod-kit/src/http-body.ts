// Request bodies for every node:http listener (mods, the host, its ingress): read one under a cap, parse it as
// JSON, answer in JSON. Each listener keeps its own statuses and words; only the mechanics live here.
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";

/** The body is (or declares itself) longer than `limit` bytes. */
export class BodyTooLargeError extends Error {
  override name = "BodyTooLargeError";
  constructor(readonly limit: number) {
    super(`the request body exceeds ${limit} bytes`);
  }
}

/** The body is not valid JSON (an empty body neither). */
export class BodyNotJsonError extends Error {
  override name = "BodyNotJsonError";
  constructor() {
    super("the request body is not valid JSON");
  }
}

/** The client went away before its body ended (the stream's own error, if any, is the cause). */
export class BodyAbortedError extends Error {
  override name = "BodyAbortedError";
  constructor(cause?: unknown) {
    super("the request was aborted before its body ended", { cause });
  }
}

/** How much of a body a listener reads. */
export interface ReadBodyOptions {
  /** Most bytes kept; a longer body (or a Content-Length above it) is refused with BodyTooLargeError. */
  limit: number;
}

/**
 * Reads the whole request body, at most `limit` bytes. A declared Content-Length above the limit is refused at
 * once; a body that grows past it is refused when it does. Either way nothing more is kept, and the rest of the
 * body is left to the caller's answer, which should carry `connection: close` (so the upload ends there and the
 * answer still reaches the client; destroying the request instead would reset the connection under it).
 */
export function readBody(req: IncomingMessage, { limit }: ReadBodyOptions): Promise<Buffer> {
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (declared > limit) return Promise.reject(new BodyTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (done: () => void) => {
      if (settled) return;
      settled = true;
      done();
    };
    req.on("data", (c: Buffer) => {
      if (settled) return; // past the limit: drained, not kept
      size += c.length;
      if (size > limit) {
        chunks.length = 0;
        settle(() => reject(new BodyTooLargeError(limit)));
        return;
      }
      chunks.push(c);
    });
    req.on("end", () => settle(() => resolve(Buffer.concat(chunks))));
    req.on("error", (e) => settle(() => reject(new BodyAbortedError(e))));
    req.on("close", () => settle(() => reject(new BodyAbortedError())));
  });
}

/** Parses a body read by readBody as JSON (UTF-8); throws BodyNotJsonError for anything else, empty included. */
export function parseJsonBody(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new BodyNotJsonError();
  }
}

/** readBody, then parseJsonBody: BodyTooLargeError past the limit, BodyNotJsonError when it is not JSON. */
export async function readJsonBody(req: IncomingMessage, opts: ReadBodyOptions): Promise<unknown> {
  return parseJsonBody(await readBody(req, opts));
}

/** Answers `value` as JSON with its length (extra headers beside, such as `connection: close` after a 413). */
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: OutgoingHttpHeaders = {},
): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
  });
  res.end(body);
}

/** Answers `{"error": message}`, the host's and the ingress's error shape (a mod's endpoint answers JSON-RPC). */
export function sendJsonError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: OutgoingHttpHeaders = {},
): void {
  sendJson(res, status, { error: message }, headers);
}
