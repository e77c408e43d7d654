// Pure text rules of read_file and edit_file: line windows and exact replacement. No I/O here, so the
// rules are tested on strings and the file tools only add reading and writing around them.
import { READ_LIMIT_DEFAULT_LINES, READ_WINDOW_MAX_BYTES } from "./limits.ts";
import { msg, ToolError } from "./messages.ts";

/** One read_file answer: the exact text of lines `from`..`to` (1-based, inclusive) and where it stands. */
export interface LineWindow {
  content: string;
  from: number;
  to: number;
  total_lines: number;
  remaining_lines: number;
  /** The offset that reads on after this window, or null at the end of the file. */
  next_offset: number | null;
  note: string;
}

/** Start index of every line; a final newline ends the last line rather than opening an empty one. */
function lineStarts(text: string): number[] {
  if (text === "") return [];
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1 && i < text.length - 1; i = text.indexOf("\n", i + 1)) {
    starts.push(i + 1);
  }
  return starts;
}

/**
 * Cuts a window of whole lines out of `text`: `offset` is the 1-based first line, `limit` the most
 * lines; the window also stops before READ_WINDOW_MAX_BYTES. Line endings are kept byte for byte, so
 * the content can be pasted into edit_file's `old` as it is.
 */
export function lineWindow(text: string, offset = 1, limit = READ_LIMIT_DEFAULT_LINES): LineWindow {
  const starts = lineStarts(text);
  const total = starts.length;
  if (total === 0) {
    if (offset !== 1) throw new ToolError(msg.offsetPastEnd(offset, 0));
    return {
      content: "",
      from: 0,
      to: 0,
      total_lines: 0,
      remaining_lines: 0,
      next_offset: null,
      note: msg.windowEmpty(),
    };
  }
  if (offset > total) throw new ToolError(msg.offsetPastEnd(offset, total));
  // Line n (0-based) runs from starts[n] up to the start of line n + 1, or the end of the text.
  const lineEnd = (next: number) => starts[next] ?? text.length;
  const first = offset - 1;
  let last = Math.min(first + limit, total); // exclusive, 0-based
  let bytes = 0;
  for (let i = first; i < last; i++) {
    bytes += Buffer.byteLength(text.slice(starts[i], lineEnd(i + 1)));
    if (bytes > READ_WINDOW_MAX_BYTES) {
      if (i === first) throw new ToolError(msg.lineTooLong(offset, READ_WINDOW_MAX_BYTES));
      last = i;
      break;
    }
  }
  const content = text.slice(starts[first], lineEnd(last));
  const to = last; // 1-based number of the last line in the window
  const remaining = total - to;
  return {
    content,
    from: offset,
    to,
    total_lines: total,
    remaining_lines: remaining,
    next_offset: remaining > 0 ? to + 1 : null,
    note: remaining > 0 ? msg.windowMore(offset, to, total) : msg.windowEnd(offset, to, total),
  };
}

/** Applies edit_file's rule: `old` must occur exactly once unless replaceAll; returns the new text and count. */
export function exactReplace(
  text: string,
  old: string,
  replacement: string,
  replaceAll: boolean,
  shownPath: string,
): { text: string; count: number } {
  if (old === "") throw new ToolError(msg.oldEmpty());
  if (old === replacement) throw new ToolError(msg.oldEqualsNew());
  // split/join rather than String.replace: `$&` and friends in `new` must stay literal.
  const parts = text.split(old);
  const count = parts.length - 1;
  if (count === 0) throw new ToolError(msg.noMatch(shownPath));
  if (count > 1 && !replaceAll) throw new ToolError(msg.manyMatches(shownPath, count));
  return { text: parts.join(replacement), count };
}
