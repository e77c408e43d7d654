import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { readSse, type SseEvent, StreamStalledError } from "./sse.ts";

function streamOf(parts: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const p of parts) c.enqueue(p);
      c.close();
    },
  });
}

async function collect(parts: Uint8Array[]): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const e of readSse(streamOf(parts))) out.push(e);
  return out;
}

const enc = (s: string) => new TextEncoder().encode(s);

describe("readSse", () => {
  it("skips comments and keepalives and reads event: names", async () => {
    const events = await collect([enc(": keepalive\n\nevent: ping\ndata: {}\n\n:\n\ndata: a\n\n")]);
    expect(events).toEqual([
      { event: "ping", data: "{}" },
      { event: undefined, data: "a" },
    ]);
  });

  it("accepts CRLF and lone CR line endings", async () => {
    expect(await collect([enc("data: one\r\n\r\ndata: two\r\rdata: three\n\n")])).toEqual([
      { event: undefined, data: "one" },
      { event: undefined, data: "two" },
      { event: undefined, data: "three" },
    ]);
  });

  it("joins multi-line data with newlines", async () => {
    expect(await collect([enc('data: {"a":\ndata: 1}\n\n')])).toEqual([
      { event: undefined, data: '{"a":\n1}' },
    ]);
  });

  it("delivers a last event cut off without its blank line", async () => {
    expect(await collect([enc("data: first\n\ndata: last")])).toEqual([
      { event: undefined, data: "first" },
      { event: undefined, data: "last" },
    ]);
    expect(await collect([enc("data: last\n")])).toEqual([{ event: undefined, data: "last" }]);
  });

  it("the result does not depend on how the bytes were split into reads, even inside UTF-8 characters", async () => {
    const text =
      ': comment\r\n\r\nevent: response.output_text.delta\r\ndata: {"delta":"こんにちは🌸"}\r\n\r\n' +
      'data: {"choices":[{"delta":{"content":"é ñ 漢字"}}]}\n\ndata: multi\ndata: line\n\ndata: [DONE]\n\ndata: tail';
    const bytes = enc(text);
    const whole = await collect([bytes]);
    expect(whole).toHaveLength(5);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 40 }),
        async (cuts) => {
          const sorted = [...cuts].sort((a, b) => a - b);
          const parts: Uint8Array[] = [];
          let from = 0;
          for (const c of sorted) {
            parts.push(bytes.slice(from, c));
            from = c;
          }
          parts.push(bytes.slice(from));
          expect(await collect(parts)).toEqual(whole);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("raises StreamStalledError when no byte arrives within the idle timeout", async () => {
    const never = new ReadableStream<Uint8Array>({ start() {} });
    const it = readSse(never, { idleMs: 50 })[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toBeInstanceOf(StreamStalledError);
  });
});
