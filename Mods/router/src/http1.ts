// The HTTP/1.1 the router speaks itself (RFC 9112): message heads, body framing and a chunked scanner.
// Strict on purpose: anything a proxy could read two ways (Content-Length beside Transfer-Encoding, two
// lengths, folded or malformed header lines, bare CR) is refused rather than guessed at, so the router and
// the mod behind it can never disagree about where a message ends. The mods run Node, whose parser is llhttp
// (strict mode): wherever RFC 9112 leaves a choice, the router reads a message no more loosely than llhttp
// 9 does, and test/framing-fuzz.test.ts holds it to that, byte stream by byte stream.
import { METHODS, STATUS_CODES } from "node:http";

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
  /** What framing, routing and the guard read, gathered in the one pass over the lines: Content-Length,
   *  Transfer-Encoding and Connection (with Proxy-Connection, which llhttp reads as Connection) untrimmed, as
   *  llhttp reads them character by character; Host and Origin trimmed. */
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
/** The methods llhttp reads (node:http's list): another one is refused here, not passed to a mod that would
 *  refuse it after the router had framed it. CONNECT asks for a tunnel, which the router does not open. */
const KNOWN_METHODS: ReadonlySet<string> = new Set(METHODS.filter((m) => m !== "CONNECT"));
/** Request targets llhttp reads alike: origin-form (or `*`) of visible ASCII, or absolute-form with a plain
 *  authority (RFC 9112 §3.2). No obs-text, no control character, no space. */
const TARGET = /^(?:[/*][\x21-\x7e]*|[A-Za-z]+:\/\/[\w\-.!~*'();:&=+$,%[\]]+(?:[/?][\x21-\x7e]*)?)$/;
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
    if (!KNOWN_METHODS.has(m[1]!)) throw new HeadError(`unsupported method '${m[1]}'`, 501);
    if (!TARGET.test(m[2]!)) throw new HeadError("malformed request target");
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
    const colon = headerColon(line);
    const name = line.slice(0, colon);
    const value = trimOws(line, colon + 1);
    const lower = name.toLowerCase();
    head.headers.push([name, value]);
    head.names.push(lower);
    switch (lower) {
      case "content-length":
        head.contentLength.push(line.slice(colon + 1));
        break;
      case "transfer-encoding":
        head.transferEncoding.push(line.slice(colon + 1));
        break;
      case "connection":
      case "proxy-connection":
        head.connection.push(line.slice(colon + 1));
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

/** Checks one header (or trailer) line without its CRLF and returns where its colon is. Throws HeadError. */
function headerColon(line: string): number {
  // A line holds no control character but tab: a bare CR or LF would end it for another reader.
  if (FORBIDDEN_IN_LINE.test(line)) throw new HeadError("control character in a header line");
  const colon = line.indexOf(":");
  // No colon, whitespace before it (§5.1), or a folded continuation line (obs-fold, §5.2): refused.
  if (colon <= 0) throw new HeadError("malformed header line");
  const name = line.slice(0, colon);
  if (!TOKEN.test(name)) throw new HeadError(`malformed header name '${name}'`);
  return colon;
}

/** The one value of a header gathered by parseHead; undefined when absent; HeadError when sent more than once. */
export function single(values: string[], name: string): string | undefined {
  if (values.length > 1) throw new HeadError(`more than one '${name}' header`);
  return values[0];
}

/** The comma-separated tokens of Connection (and Proxy-Connection), trimmed and lowercased: what names the
 *  hop-by-hop headers, and `close` (read as widely as this, a close llhttp would miss only ends a connection
 *  sooner). */
export function connectionTokens(head: Head): ReadonlySet<string> {
  head.tokens ??= readTokens(head.connection);
  return head.tokens;
}

function readTokens(connection: string[]): ReadonlySet<string> {
  if (connection.length === 0) return NO_TOKENS;
  // What nearly every client and server sends, without splitting.
  if (connection.length === 1 && connection[0]!.trim().toLowerCase() === "keep-alive") return KEEP_ALIVE;
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

/** A keep-alive token as llhttp reads one: blanks before it, spaces (never a tab) after. */
const KEEP_ALIVE_TOKEN = /^[ \t]*keep-alive *$/i;

/** Whether the sender of this head keeps its connection open after the message (§9.3). An HTTP/1.0 sender's
 *  keep-alive counts only as llhttp reads it, so the router never reads on where llhttp would have stopped. */
export function keepsAlive(head: Head): boolean {
  if (head.minor === 1) return !connectionTokens(head).has("close");
  return head.connection.some((v) => v.split(",").some((t) => KEEP_ALIVE_TOKEN.test(t)));
}

/** Whether a request asks to switch protocols (Upgrade with a Connection `upgrade` token): llhttp reads no
 *  further request on that connection, so neither does the router (it forwards the request without them). */
export function asksUpgrade(head: Head): boolean {
  return head.names.includes("upgrade") && connectionTokens(head).has("upgrade");
}

/** How a message body is delimited (§6.3). */
export type Framing =
  | { kind: "none" }
  | { kind: "length"; length: number }
  | { kind: "chunked" }
  /** Response only: the body runs until the sender closes. */
  | { kind: "close" };

/** A Content-Length value as llhttp reads one: blanks before the digits, spaces (never a tab) after. */
const LENGTH = /^[ \t]*(\d{1,15}) *$/;
/** Transfer-Encoding as the router passes it on: `chunked` alone, blanks before, spaces after (as llhttp). */
const CHUNKED = /^[ \t]*chunked *$/i;

function contentLength(head: Head): number | undefined {
  if (head.contentLength.length === 0) return undefined;
  // One header, one number: a list of lengths, even of equal ones (§8.6 would allow it), is refused as llhttp does.
  if (head.contentLength.length > 1) throw new HeadError("more than one Content-Length");
  const m = LENGTH.exec(head.contentLength[0]!);
  if (!m) throw new HeadError("invalid Content-Length");
  return Number(m[1]);
}

function isChunked(head: Head): boolean {
  if (head.transferEncoding.length === 0) return false;
  // Only "chunked" alone: a proxy that passes bytes through cannot apply other codings (§6.1: 501).
  if (head.transferEncoding.length > 1 || !CHUNKED.test(head.transferEncoding[0]!)) {
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
  /** The first digit of a chunk size. */
  Size,
  /** More digits, then `;` or CR. */
  SizeMore,
  /** Just after a `;`: an extension name starts. */
  Ext,
  ExtName,
  ExtValue,
  ExtQuoted,
  ExtQuotedPair,
  ExtQuotedDone,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  /** A trailer line (or the empty line that ends the body), up to its CR. */
  Trailer,
  TrailerLf,
  Done,
}

/** Chunk sizes beyond this (2^48, leading zeros aside) are refused: no honest body is that big, and it stays
 *  exact in a double. */
const MAX_CHUNK_HEX_DIGITS = 12;

// Byte classes of RFC 9110 §5.6 as llhttp 9 uses them for chunk extensions.
const TCHAR = byteSet("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz");
/** qdtext: HTAB, SP, visible ASCII but `"` and `\`, obs-text. */
const QDTEXT = byteSet("\t ", [0x21, 0x21], [0x23, 0x5b], [0x5d, 0x7e], [0x80, 0xff]);
/** What may follow a `\` in a quoted string: HTAB, SP, visible ASCII, obs-text. */
const QUOTED_PAIR = byteSet("\t ", [0x21, 0x7e], [0x80, 0xff]);

function byteSet(chars: string, ...ranges: [number, number][]): Uint8Array {
  const set = new Uint8Array(256);
  for (let i = 0; i < chars.length; i++) set[chars.charCodeAt(i)] = 1;
  for (const [a, b] of ranges) set.fill(1, a, b + 1);
  return set;
}

/** Trailer fields llhttp acts on (a length, a coding, a close): refused in trailers, where they are no use. */
const FRAMING_FIELDS: ReadonlySet<string> = new Set([
  "content-length",
  "transfer-encoding",
  "connection",
  "proxy-connection",
]);

/**
 * Finds where a chunked body ends in a stream of bytes without copying them (§7.1): `scan` returns how many bytes
 * of the chunk belong to the body (all of them until the last chunk and trailers end), and with `onData` also hands
 * out the decoded payload (for an HTTP/1.0 client). Throws HeadError on a malformed stream. The grammar is llhttp's
 * strict one: no whitespace around a size, extensions as `;name[=token|"quoted"]`, trailers as header lines.
 */
export class ChunkedScanner {
  private state = C.Size;
  private digits = 0;
  private size = 0;
  /** Bytes of the current size line's extensions, of the trailers. */
  private extBytes = 0;
  private trailerBytes = 0;
  /** The trailer line being read (latin1). */
  private line = "";

  get done(): boolean {
    return this.state === C.Done;
  }

  scan(buf: Buffer, from = 0, onData?: (data: Buffer) => void): number {
    let i = from;
    const n = buf.length;
    while (i < n && this.state !== C.Done) {
      const b = buf[i]!;
      switch (this.state) {
        case C.Size:
        case C.SizeMore: {
          const d = hexValue(b);
          if (d >= 0) {
            this.size = this.size * 16 + d;
            // Leading zeros are no digits of the size.
            if (this.size > 0 && ++this.digits > MAX_CHUNK_HEX_DIGITS)
              throw new HeadError("chunk size too large");
            this.state = C.SizeMore;
          } else if (this.state === C.SizeMore && b === 0x3b /* ; */) {
            this.state = C.Ext;
            this.extBytes = 0;
          } else if (this.state === C.SizeMore && b === 0x0d) {
            this.state = C.SizeLf;
          } else throw new HeadError("malformed chunk size");
          i++;
          break;
        }
        case C.Ext:
        case C.ExtName:
        case C.ExtValue:
        case C.ExtQuoted:
        case C.ExtQuotedPair:
        case C.ExtQuotedDone:
          // Extensions are passed through unread, but only in a shape that ends where llhttp's ends.
          if (++this.extBytes > MAX_HEAD_BYTES) throw new HeadError("chunk extensions too large");
          this.state = this.extension(b);
          i++;
          break;
        case C.SizeLf:
          if (b !== 0x0a) throw new HeadError("malformed chunk line");
          this.state = this.size === 0 ? C.Trailer : C.Data;
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
        case C.Trailer:
        case C.TrailerLf:
          // Node counts trailer names and values against its 16 KiB; the router counts every byte, so it
          // never passes trailers Node would refuse.
          if (++this.trailerBytes >= MAX_HEAD_BYTES) throw new HeadError("trailers too large", 431);
          this.trailer(b);
          i++;
          break;
      }
    }
    return i - from;
  }

  /** The state after byte b of a chunk extension (after the `;`). */
  private extension(b: number): C {
    switch (this.state) {
      case C.Ext:
        // A name starts (an empty one too: llhttp reads `;;` and `;=v`), never with a blank or CR.
        if (b === 0x20 || b === 0x0d) break;
        this.state = C.ExtName;
        return this.extension(b);
      case C.ExtName:
        if (TCHAR[b]) return C.ExtName;
        if (b === 0x3d /* = */) return C.ExtValue;
        if (b === 0x3b) return C.Ext;
        if (b === 0x0d) return C.SizeLf;
        break;
      case C.ExtValue:
        if (b === 0x22 /* " */) return C.ExtQuoted;
        if (TCHAR[b]) return C.ExtValue;
        if (b === 0x3b) return C.Ext;
        if (b === 0x0d) return C.SizeLf;
        break;
      case C.ExtQuoted:
        if (b === 0x22) return C.ExtQuotedDone;
        if (b === 0x5c /* \ */) return C.ExtQuotedPair;
        if (QDTEXT[b]) return C.ExtQuoted;
        break;
      case C.ExtQuotedPair:
        if (QUOTED_PAIR[b]) return C.ExtQuoted;
        break;
      case C.ExtQuotedDone:
        if (b === 0x3b) return C.Ext;
        if (b === 0x0d) return C.SizeLf;
        break;
    }
    throw new HeadError("malformed chunk extension");
  }

  /** Reads byte b of the trailers: each line is checked as a header line; the empty one ends the body. */
  private trailer(b: number): void {
    if (this.state === C.TrailerLf) {
      if (b !== 0x0a) throw new HeadError("malformed trailer");
      if (this.line === "") {
        this.state = C.Done;
        return;
      }
      const colon = headerColon(this.line);
      if (FRAMING_FIELDS.has(this.line.slice(0, colon).toLowerCase())) {
        throw new HeadError("a framing field in the trailers");
      }
      this.line = "";
      this.state = C.Trailer;
    } else if (b === 0x0d) this.state = C.TrailerLf;
    else if (b === 0x0a) throw new HeadError("malformed trailer");
    else this.line += String.fromCharCode(b);
  }
}

function hexValue(b: number): number {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x61 && b <= 0x66) return b - 0x57;
  if (b >= 0x41 && b <= 0x46) return b - 0x37;
  return -1;
}
