import {
  DEADLINE_MARK,
  RESULT_CAP_BYTES,
  TRUNCATED_MARK,
  UNTRUSTED_LINE,
} from "../../src/io/browser/results.ts";

// Keep at most this much of a CLI's output in memory; the result shows at most 64 KiB of it anyway.
const KEEP_BYTES = 1024 * 1024;
// A line longer than this cannot be ego lite's exit line nor the deadline line; only its end is remembered.
const LINE_MEMORY = 256;

const EXIT_LINE = /exited with code -?\d+\s*$/;

/** What a CLI printed on one stream, bounded in memory, with the lines the result rules look for. */
export class OutputCollector {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private partial = "";
  private lastLine = "";
  /** Bytes received in all, kept or not. */
  total = 0;
  /** Whether a line ending in "[yui] deadline" went by. */
  sawDeadline = false;

  /** Takes the next chunk of the stream. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.kept < KEEP_BYTES) {
      const part = chunk.subarray(0, KEEP_BYTES - this.kept);
      this.chunks.push(part);
      this.kept += part.length;
    }
    // Line tracking runs on every chunk, so the deadline line is seen even past the kept bytes.
    const text = this.partial + chunk.toString("latin1");
    const lines = text.split("\n");
    this.partial = (lines.pop() ?? "").slice(-LINE_MEMORY);
    for (const line of lines) this.seeLine(line);
  }

  private seeLine(line: string): void {
    const trimmed = line.replace(/\r$/, "");
    if (trimmed.endsWith(DEADLINE_MARK)) this.sawDeadline = true;
    if (trimmed.trim()) this.lastLine = trimmed.slice(-LINE_MEMORY);
  }

  /** Ends the stream: a last line without a newline counts too. */
  finish(): void {
    if (this.partial) this.seeLine(this.partial);
    this.partial = "";
  }

  /** The kept output as text, and whether bytes were left out of memory. */
  text(): { output: string; overflow: boolean } {
    return { output: Buffer.concat(this.chunks).toString("utf8"), overflow: this.total > this.kept };
  }

  /** The output's last non-empty line, when it is ego lite's "exited with code N" line. */
  exitLine(): string | undefined {
    return EXIT_LINE.test(this.lastLine) ? Buffer.from(this.lastLine, "latin1").toString("utf8") : undefined;
  }
}

/** The longest prefix of text that fits in maxBytes of UTF-8, never splitting a character. */
export function cutUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length <= maxBytes) return text;
  let end = Math.max(0, maxBytes);
  // A continuation byte (10xxxxxx) at the cut means the cut is inside a character: back off to its start.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString("utf8");
}

const byteLength = (text: string) => Buffer.byteLength(text, "utf8");

/**
 * Builds a script result's text: [status line], [overlap note], the untrusted line, the output, the screenshot
 * notes; capped at 64 KiB of UTF-8. Only the output is cut (ending with [truncated]); a trailing exit line is kept
 * after the cut.
 */
export function composeScriptText(opts: {
  status?: string;
  /** The client's own note (OVERLAP_NOTE), before the untrusted line; never cut. */
  overlap?: string;
  output: string;
  overflow?: boolean;
  exitLine?: string;
  notes?: readonly string[];
  capBytes?: number;
}): string {
  const cap = opts.capBytes ?? RESULT_CAP_BYTES;
  const head = [opts.status, opts.overlap, UNTRUSTED_LINE].filter((l) => l !== undefined).join("\n");
  const notes = (opts.notes ?? []).map((n) => `\n${n}`).join("");
  const output = opts.output.replace(/\s+$/, "");
  const whole = `${head}${output ? `\n${output}` : ""}${notes}`;
  if (!opts.overflow && byteLength(whole) <= cap) return whole;

  // Keep ego lite's exit line whole after the cut: it says how the run ended.
  let body = output;
  let tail = "";
  if (opts.exitLine) {
    const exit = opts.exitLine.replace(/\s+$/, "");
    const at = body.lastIndexOf(exit);
    if (at >= 0 && body.slice(at + exit.length).trim() === "") body = body.slice(0, at);
    tail = `\n${exit}`;
  }
  const mark = `\n${TRUNCATED_MARK}`;
  const budget = cap - byteLength(head) - 1 - byteLength(mark) - byteLength(tail) - byteLength(notes);
  const cut = cutUtf8(body, budget).replace(/\n$/, "");
  return `${head}\n${cut}${mark}${tail}${notes}`;
}
