// The HTTP/1.1 the router speaks itself (RFC 9112): message heads, body framing and a chunked scanner.
// Strict on purpose: anything a proxy could read two ways (Content-Length beside Transfer-Encoding, two
// different lengths, folded or malformed header lines, bare CR) is refused rather than guessed at, so the
// router and the mod behind it can never disagree about where a message ends.
import { STATUS_CODES } from "node:http";

/** One parsed message head: the start line's parts and the header lines as received (names in their case). */
export interface Head {
  /** Request: method; response: "" */
  method: string;
  /** Request: the target as sent; response: "" */
  target: string;
  /** Response: the status code; request: 0 */
  status: number;
  /** Response: the reason phrase as sent. */
  reason: string;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1 */
  minor: 0 | 1;
  headers: [name: string, value: string][];
  /** The header names lowercased, index for index. */
  names: string[];
  /** What framing, routing and the guard read, gathered in the one pass over the lines (values as sent). */
  contentLength: string[];
  transferEncoding: string[];
  connection: string[];
  host: string[];
  origin: string[];
  /** Connection's tokens lowercased, once connectionTokens has read them. */
  tokens?: ReadonlySet<string>;
}

/** A message head that cannot be read one way only: answered 400 (or 431 / 501 as `status` says), then closed. */
export class HeadError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 431 | 501 = 400,
  ) {
    super(message);
  }
}

/** Node's default limit for a whole head (request line + headers). */
export const MAX_HEAD_BYTES = 16 * 1024;

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Header lines hold visible ASCII, obs-text, space and tab: never another control character, and CR / LF only
// as the CRLF that ends a line.
const FORBIDDEN_IN_LINE = /[\x00-\x08\x0a-\x1f\x7f]/;
const REQUEST_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+) ([\x21-\x7e\x80-\xff]+) HTTP\/1\.([01])$/;
const STATUS_LINE = /^HTTP\/1\.([01]) ([1-9]\d\d)(?: ([\t\x20-\x7e\x80-\xff]*))?$/;

/**
 * Finds the end of a head in `buf` (after any empty lines before it, which RFC 9112 §2.2 lets a recipient skip):
 * returns [start, end] with end just past the blank line, or undefined while it is incomplete.
 */
export function findHead(buf: Buffer): [number, number] | undefined {
  let start = 0;
  while (buf[start] === 0x0d && buf[start + 1] === 0x0a) start += 2;
  const end = buf.indexOf("\r\n\r\n", start, "latin1");
  return end < 0 ? undefined : [start, end + 4];
}

/** SP / HTAB trimmed from both ends (String#trim would also take obs-text's NBSP). */
function trimOws(s: string, from: number): string {
  let a = from;
  let b = s.length;
  while (a < b && (s.charCodeAt(a) === 0x20 || s.charCodeAt(a) === 0x09)) a++;
  while (b > a && (s.charCodeAt(b - 1) === 0x20 || s.charCodeAt(b - 1) === 0x09)) b--;
  return s.slice(a, b);
}

/** Parses the head in buf[start, end) (end as findHead returns it). Throws HeadError. */
export function parseHead(buf: Buffer, start: number, end: number, kind: "request" | "response"): Head {
  const text = buf.toString("latin1", start, end - 2);

  const head: Head = {
    method: "",
    target: "",
    status: 0,
    reason: "",
    minor: 1,
    headers: [],
    names: [],
    contentLength: [],
    transferEncoding: [],
    connection: [],
    host: [],
    origin: [],
  };
  let eol = text.indexOf("\r\n");
  const first = text.slice(0, eol);
  if (kind === "request") {
    const m = REQUEST_LINE.exec(first);
    if (!m) throw new HeadError("malformed request line");
    head.method = m[1]!;
    head.target = m[2]!;
    head.minor = m[3] === "0" ? 0 : 1;
  } else {
    const m = STATUS_LINE.exec(first);
    if (!m) throw new HeadError("malformed status line");
    head.minor = m[1] === "0" ? 0 : 1;
    head.status = Number(m[2]);
    head.reason = m[3] ?? "";
  }
  for (let pos = eol + 2; pos < text.length; pos = eol + 2) {
    eol = text.indexOf("\r\n", pos);
    const line = text.slice(pos, eol);
    // A line (without its CRLF) holds no control character but tab: a bare CR or LF would end it for another reader.
    if (FORBIDDEN_IN_LINE.test(line)) throw new HeadError("control character in a header line");
    const colon = line.indexOf(":");
    // No colon, whitespace before it (§5.1), or a folded continuation line (obs-fold, §5.2): refused.
    if (colon <= 0) throw new HeadError("malformed header line");
    const name = line.slice(0, colon);
    if (!TOKEN.test(name)) throw new HeadError(`malformed header name '${name}'`);
    const value = trimOws(line, colon + 1);
    const lower = name.toLowerCase();
    head.headers.push([name, value]);
    head.names.push(lower);
    switch (lower) {
      case "content-length":
        head.contentLength.push(value);
        break;
      case "transfer-encoding":
        head.transferEncoding.push(value);
        break;
      case "connection":
        head.connection.push(value);
        break;
      case "host":
        head.host.push(value);
        break;
      case "origin":
        head.origin.push(value);
        break;
    }
  }
  return head;
}

/** The one value of a header gathered by parseHead; undefined when absent; HeadError when sent more than once. */
export function single(values: string[], name: string): string | undefined {
  if (values.length > 1) throw new HeadError(`more than one '${name}' header`);
  return values[0];
}

/** The comma-separated tokens of Connection, lowercased. */
export function connectionTokens(head: Head): ReadonlySet<string> {
  head.tokens ??= readTokens(head.connection);
  return head.tokens;
}

function readTokens(connection: string[]): ReadonlySet<string> {
  if (connection.length === 0) return NO_TOKENS;
  // What nearly every client and server sends, without splitting.
  if (connection.length === 1 && connection[0]!.toLowerCase() === "keep-alive") return KEEP_ALIVE;
  const out = new Set<string>();
  for (const v of connection) {
    for (const t of v.split(",")) {
      const token = t.trim().toLowerCase();
      if (token) out.add(token);
    }
  }
  return out;
}

const NO_TOKENS: ReadonlySet<string> = new Set();
const KEEP_ALIVE: ReadonlySet<string> = new Set(["keep-alive"]);

/** Whether the sender of this head keeps its connection open after the message (§9.3). */
export function keepsAlive(head: Head): boolean {
  const tokens = connectionTokens(head);
  return head.minor === 1 ? !tokens.has("close") : tokens.has("keep-alive");
}

/** How a message body is delimited (§6.3). */
export type Framing =
  | { kind: "none" }
  | { kind: "length"; length: number }
  | { kind: "chunked" }
  /** Response only: the body runs until the sender closes. */
  | { kind: "close" };

const LENGTH = /^\d{1,15}$/;

function contentLength(head: Head): number | undefined {
  if (head.contentLength.length === 0) return undefined;
  // The common case, one plain number, without splitting.
  const one = head.contentLength.length === 1 ? head.contentLength[0]! : "";
  if (LENGTH.test(one)) return Number(one);
  const values = head.contentLength.flatMap((v) => v.split(",").map((s) => s.trim()));
  // Repeated but identical values are one length (§8.6); different ones are an attack or a bug.
  if (!values.every((v) => v === values[0]) || !LENGTH.test(values[0]!)) {
    throw new HeadError("invalid Content-Length");
  }
  return Number(values[0]);
}

function isChunked(head: Head): boolean {
  if (head.transferEncoding.length === 0) return false;
  const codings = head.transferEncoding.flatMap((v) => v.split(",").map((s) => s.trim().toLowerCase()));
  // Only "chunked" alone: a proxy that passes bytes through cannot apply other codings (§6.1: 501).
  if (codings.length !== 1 || codings[0] !== "chunked") {
    throw new HeadError("unsupported Transfer-Encoding", 501);
  }
  if (head.minor === 0) throw new HeadError("Transfer-Encoding in an HTTP/1.0 message");
  return true;
}

/** The framing the head declares (Transfer-Encoding or Content-Length); undefined when it declares none. */
function declaredFraming(head: Head): Framing | undefined {
  const chunked = isChunked(head);
  const length = contentLength(head);
  // Both at once is the classic request-smuggling shape: refused, not resolved (§6.1 allows either).
  if (chunked && length !== undefined) throw new HeadError("both Transfer-Encoding and Content-Length");
  if (chunked) return { kind: "chunked" };
  if (length !== undefined) return length ? { kind: "length", length } : { kind: "none" };
  return undefined;
}

/** The framing of a request body: without a declaration, none. */
export function requestFraming(head: Head): Framing {
  return declaredFraming(head) ?? { kind: "none" };
}

/** The framing of a response body, given the request's method (§6.3): without a declaration, until close. */
export function responseFraming(head: Head, method: string): Framing {
  const s = head.status;
  if (method === "HEAD" || s < 200 || s === 204 || s === 304) return { kind: "none" };
  return declaredFraming(head) ?? { kind: "close" };
}

/** Serializes a head: its start line, then the header lines. */
export function serializeHead(startLine: string, headers: readonly (readonly [string, string])[]): Buffer {
  let s = `${startLine}\r\n`;
  for (const [n, v] of headers) s += `${n}: ${v}\r\n`;
  return Buffer.from(`${s}\r\n`, "latin1");
}

/** The status line of an HTTP/1.1 response: the reason given (a mod's own), else Node's phrase for the status. */
export function statusLine(status: number, reason = STATUS_CODES[status] ?? "Unknown"): string {
  return `HTTP/1.1 ${status} ${reason}`;
}

enum C {
  Size,
  Ext,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  TrailerStart,
  Trailer,
  TrailerLf,
  FinalLf,
  Done,
}

/** Chunk sizes beyond this (2^48) are refused: no honest body is that big, and it stays exact in a double. */
const MAX_CHUNK_HEX_DIGITS = 12;

/**
 * Finds where a chunked body ends in a stream of bytes without copying them (§7.1): `scan` returns how many bytes
 * of the chunk belong to the body (all of them until the last chunk and trailers end), and with `onData` also hands
 * out the decoded payload (for an HTTP/1.0 client). Throws HeadError on a malformed stream.
 */
export class ChunkedScanner {
  private state = C.Size;
  private digits = 0;
  private size = 0;
  private trailerBytes = 0;

  get done(): boolean {
    return this.state === C.Done;
  }

  scan(buf: Buffer, from = 0, onData?: (data: Buffer) => void): number {
    let i = from;
    const n = buf.length;
    while (i < n && this.state !== C.Done) {
      const b = buf[i]!;
      switch (this.state) {
        case C.Size: {
          const d = hexValue(b);
          if (d >= 0) {
            if (++this.digits > MAX_CHUNK_HEX_DIGITS) throw new HeadError("chunk size too large");
            this.size = this.size * 16 + d;
          } else if (this.digits === 0) {
            throw new HeadError("malformed chunk size");
          } else if (b === 0x3b /* ; */ || b === 0x20 || b === 0x09) {
            this.state = C.Ext;
          } else if (b === 0x0d) {
            this.state = C.SizeLf;
          } else throw new HeadError("malformed chunk size");
          i++;
          break;
        }
        case C.Ext:
          // Chunk extensions are passed through unread; only their end matters.
          if (b === 0x0d) this.state = C.SizeLf;
          else if (b === 0x0a || b === 0) throw new HeadError("malformed chunk extension");
          i++;
          break;
        case C.SizeLf:
          if (b !== 0x0a) throw new HeadError("malformed chunk line");
          this.state = this.size === 0 ? C.TrailerStart : C.Data;
          i++;
          break;
        case C.Data: {
          const take = Math.min(this.size, n - i);
          if (onData) onData(buf.subarray(i, i + take));
          this.size -= take;
          i += take;
          if (this.size === 0) this.state = C.DataCr;
          break;
        }
        case C.DataCr:
          if (b !== 0x0d) throw new HeadError("chunk data longer than its size");
          this.state = C.DataLf;
          i++;
          break;
        case C.DataLf:
          if (b !== 0x0a) throw new HeadError("malformed chunk end");
          this.state = C.Size;
          this.digits = 0;
          i++;
          break;
        case C.TrailerStart:
          this.state = b === 0x0d ? C.FinalLf : C.Trailer;
          if (b === 0x0a) throw new HeadError("malformed trailer");
          i++;
          break;
        case C.Trailer:
          if (++this.trailerBytes > MAX_HEAD_BYTES) throw new HeadError("trailers too large", 431);
          if (b === 0x0d) this.state = C.TrailerLf;
          else if (b === 0x0a) throw new HeadError("malformed trailer");
          i++;
          break;
        case C.TrailerLf:
          if (b !== 0x0a) throw new HeadError("malformed trailer");
          this.state = C.TrailerStart;
          i++;
          break;
        case C.FinalLf:
          if (b !== 0x0a) throw new HeadError("malformed chunked body end");
          this.state = C.Done;
          i++;
          break;
      }
    }
    return i - from;
  }
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}
