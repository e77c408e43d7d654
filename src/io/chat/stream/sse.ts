import { createParser } from "eventsource-parser";

/** One server-sent event: the `event:` name (if any) and its joined `data:` lines. */
export interface SseEvent {
  event: string | undefined;
  data: string;
}

/** Raised when no byte arrives for longer than the idle timeout. */
export class StreamStalledError extends Error {
  constructor(readonly idleMs: number) {
    super(`backend stalled: no data for ${formatSeconds(idleMs)}`);
    this.name = "StreamStalledError";
  }
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

/**
 * Reads a byte stream as server-sent events; use for every streaming response.
 * Decodes UTF-8 across chunk borders, accepts CR, LF and CRLF, and skips comments. As the WHATWG
 * event-stream rules say, an event that the stream ends before its blank line is discarded, not dispatched.
 */
export async function* readSse(
  body: ReadableStream<Uint8Array>,
  opts: { idleMs?: number; signal?: AbortSignal } = {},
): AsyncGenerator<SseEvent> {
  const queue: SseEvent[] = [];
  const parser = createParser({
    onEvent: (e) => queue.push({ event: e.event, data: e.data }),
  });
  const decoder = new TextDecoder("utf-8");
  const reader = body.getReader();
  // Whether the last line-ending character seen so far is a CR: the parser holds such a CR until it sees
  // what follows it on a later line, so at the end it needs to be told that nothing follows.
  let lastEndingIsCr = false;
  try {
    for (;;) {
      const { done, value } = await readWithIdle(reader, opts.idleMs, opts.signal);
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      const cr = text.lastIndexOf("\r");
      const lf = text.lastIndexOf("\n");
      if (cr !== -1 || lf !== -1) lastEndingIsCr = cr > lf;
      parser.feed(text);
      while (queue.length) yield queue.shift()!;
    }
    // That CR is a whole line ending (no LF can follow it now): hand the parser an LF so it processes the CR.
    // The LF adds no blank line. Whatever is still pending then is an event cut off before its blank line: dropped.
    if (lastEndingIsCr) parser.feed("\n");
    while (queue.length) yield queue.shift()!;
    parser.reset();
  } finally {
    reader.cancel().catch(() => {});
  }
}

function readWithIdle(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  idleMs: number | undefined,
  signal: AbortSignal | undefined,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  if (!idleMs && !signal) return reader.read();
  return new Promise((resolve, reject) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onAbort = () => {
      cleanup();
      reject(signal?.reason ?? new DOMException("aborted", "AbortError"));
    };
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    if (idleMs) {
      timer = setTimeout(() => {
        cleanup();
        reject(new StreamStalledError(idleMs));
      }, idleMs);
    }
    reader.read().then(
      (r) => {
        cleanup();
        resolve(r);
      },
      (e) => {
        cleanup();
        reject(e);
      },
    );
  });
}
