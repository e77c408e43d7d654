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
 * Decodes UTF-8 across chunk borders, accepts CR, LF and CRLF, skips comments, and delivers a
 * last event that the server cut off without its blank line.
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
  try {
    for (;;) {
      const { done, value } = await readWithIdle(reader, opts.idleMs, opts.signal);
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      while (queue.length) yield queue.shift()!;
    }
    // Flush a trailing partial code point and an event left without its blank line.
    parser.feed(`${decoder.decode()}\n\n`);
    while (queue.length) yield queue.shift()!;
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
