// Decoding of window properties as the X server hands them (GetProperty's type, format and bytes) into the
// values the window model reads (docs/body.md "X11"). Pure: the atoms a value names come from the caller.

/** A property as GetProperty answers it: a missing property has type 0 and no data. */
export interface PropertyValue {
  type: number;
  format: number;
  data: Buffer;
}

/** The 32-bit items of a format-32 value (CARDINAL, WINDOW, ATOM); nothing for another format. */
export function cardinals(p: PropertyValue | null | undefined): number[] {
  if (p?.format !== 32) return [];
  const out: number[] = [];
  for (let i = 0; i + 4 <= p.data.length; i += 4) out.push(p.data.readUInt32LE(i));
  return out;
}

/** A WINDOW list as xprop writes window ids ("0x40000c"); 0 (none) is dropped. */
export function windowIds(p: PropertyValue | null | undefined): string[] {
  return cardinals(p)
    .filter((id) => id !== 0)
    .map(hexId);
}

/** A window id as xprop and xwininfo write it. */
export const hexId = (id: number): string => `0x${id.toString(16)}`;

/** The names of an ATOM list, as far as `names` knows them (the model looks for a few names only). */
export function atomNames(p: PropertyValue | null | undefined, names: ReadonlyMap<number, string>): string[] {
  return cardinals(p)
    .map((a) => names.get(a))
    .filter((n): n is string => n !== undefined);
}

/** The atoms that say how a format-8 text is encoded. */
export interface TextTypes {
  utf8: number;
  string: number;
  compound: number;
}

/** The strings of a format-8 text value (NUL-separated), decoded by its type; null when absent. */
export function texts(p: PropertyValue | null | undefined, types: TextTypes): string[] | null {
  if (!p || p.type === 0 || p.format !== 8) return null;
  const parts: Buffer[] = [];
  let start = 0;
  for (let i = 0; i <= p.data.length; i++) {
    if (i === p.data.length || p.data[i] === 0) {
      parts.push(p.data.subarray(start, i));
      start = i + 1;
    }
  }
  // A terminating NUL ends the last string; it does not start an empty one.
  if (parts.length > 1 && parts[parts.length - 1]!.length === 0) parts.pop();
  return parts.map((b) =>
    p.type === types.string
      ? b.toString("latin1")
      : p.type === types.compound
        ? compoundText(b)
        : b.toString("utf8"),
  );
}

/** A one-string text (WM_NAME, _NET_WM_NAME): its first string; null when absent. */
export function text(p: PropertyValue | null | undefined, types: TextTypes): string | null {
  return texts(p, types)?.[0] ?? null;
}

/** WM_CLASS's instance and class; one string is both (as xprop shows it); null when absent. */
export function wmClass(
  p: PropertyValue | null | undefined,
  types: TextTypes,
): { instance: string; cls: string } | null {
  const all = texts(p, types);
  if (!all?.length) return null;
  return { instance: all[0]!, cls: all[1] ?? all[0]! };
}

/** ISO 8859 right halves by their final byte in ESC - F (ICCCM's compound text). */
const RIGHT_HALVES: Record<string, string> = {
  A: "iso-8859-1",
  B: "iso-8859-2",
  C: "iso-8859-3",
  D: "iso-8859-4",
  L: "iso-8859-5",
  G: "iso-8859-6",
  F: "iso-8859-7",
  H: "iso-8859-8",
  M: "iso-8859-9",
  b: "iso-8859-15",
};
/** 94x94 sets by their final byte in ESC $ ( F / ESC $ ) F, read through their EUC encoding (high bits set). */
const DOUBLE_BYTE: Record<string, string> = { A: "gbk", B: "euc-jp", C: "euc-kr" };

/** A run of bytes of one charset: how it decodes. */
type Charset =
  | { kind: "ascii" }
  | { kind: "single"; encoding: string }
  | { kind: "double"; encoding: string };

/**
 * COMPOUND_TEXT (ICCCM's ISO 2022 text, what Xlib sets WM_NAME to for a title outside Latin-1): ASCII on the
 * left half and Latin-1 on the right in its initial state; ISO 8859 right halves (ESC - F), the Japanese,
 * Korean and Chinese 94x94 sets (ESC $ ( F, ESC $ ) F) and UTF-8 (ESC % G ... ESC % @) by escapes, as
 * Xlib writes them. Bytes of a charset not known here are dropped.
 */
export function compoundText(b: Buffer): string {
  let gl: Charset = { kind: "ascii" };
  let gr: Charset = { kind: "single", encoding: "iso-8859-1" };
  let out = "";
  let run: number[] = [];
  let runSet: Charset | null = null;
  const flush = () => {
    if (runSet && run.length) out += decodeRun(runSet, run);
    run = [];
  };
  for (let i = 0; i < b.length; ) {
    const c = b[i]!;
    if (c === 0x1b) {
      flush();
      const esc = escapeAt(b, i);
      i = esc.next;
      if (esc.utf8 !== undefined) out += esc.utf8;
      if (esc.gl) gl = esc.gl;
      if (esc.gr) gr = esc.gr;
      continue;
    }
    // Space, newline and tab stay themselves under any set.
    const set: Charset = c < 0x80 ? (c <= 0x20 ? { kind: "ascii" } : gl) : gr;
    if (set !== runSet) flush();
    runSet = set;
    run.push(set.kind === "double" ? c | 0x80 : c);
    i++;
  }
  flush();
  return out;
}

function decodeRun(set: Charset, bytes: number[]): string {
  const buf = Buffer.from(bytes);
  if (set.kind === "ascii") return buf.toString("latin1");
  return set.encoding ? new TextDecoder(set.encoding).decode(buf) : "";
}

/** The escape sequence at `i`: the sets it designates, or a UTF-8 segment it wraps, and where text resumes. */
function escapeAt(b: Buffer, i: number): { next: number; gl?: Charset; gr?: Charset; utf8?: string } {
  let j = i + 1;
  while (j < b.length && b[j]! >= 0x20 && b[j]! <= 0x2f) j++;
  const inter = b.subarray(i + 1, j).toString("latin1");
  const final = String.fromCharCode(b[j] ?? 0);
  const next = j + 1;
  if (inter === "%" && final === "G") {
    const end = b.indexOf("\x1b%@", next, "latin1");
    const stop = end < 0 ? b.length : end;
    return { next: end < 0 ? b.length : end + 3, utf8: b.subarray(next, stop).toString("utf8") };
  }
  const unknown: Charset = { kind: "single", encoding: "" };
  if (inter === "(") return { next, gl: final === "B" || final === "J" ? { kind: "ascii" } : unknown };
  if (inter === "-") {
    const encoding = RIGHT_HALVES[final];
    return { next, gr: encoding ? { kind: "single", encoding } : unknown };
  }
  if (inter === "$(" || inter === "$)" || inter === "$") {
    const encoding = DOUBLE_BYTE[final];
    const set: Charset = encoding ? { kind: "double", encoding } : unknown;
    return inter === "$)" ? { next, gr: set } : { next, gl: set };
  }
  return { next };
}
