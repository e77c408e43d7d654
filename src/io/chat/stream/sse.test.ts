import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FIXED_CHUNKINGS, randomChunking, splitAt } from "./chunkings.ts";
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

  it("discards an event the stream ends before its blank line (WHATWG), whatever the last line ending", async () => {
    expect(await collect([enc("data: first\n\ndata: last")])).toEqual([{ event: undefined, data: "first" }]);
    expect(await collect([enc("data: first\r\n\r\ndata: last\r\n")])).toEqual([
      { event: undefined, data: "first" },
    ]);
    expect(await collect([enc("event: x\ndata: last\n")])).toEqual([]);
    expect(await collect([enc("data: cut mid-line")])).toEqual([]);
    // A CR at the very end ends its line: the blank line is complete and the event goes out.
    expect(await collect([enc("data: last\r\r")])).toEqual([{ event: undefined, data: "last" }]);
    expect(await collect([enc("data: last\n\r")])).toEqual([{ event: undefined, data: "last" }]);
  });

  it("the result does not depend on how the bytes were split into reads, even inside UTF-8 characters and CRLFs", async () => {
    const text =
      ': comment\r\n\r\nevent: response.output_text.delta\r\ndata: {"delta":"こんにちは🌸"}\r\n\r\n' +
      'data: {"choices":[{"delta":{"content":"é ñ 漢字"}}]}\n\ndata: multi\ndata: line\n\ndata: [DONE]\r\rdata: {"tail":"切れ';
    const bytes = enc(text);
    const whole = await collect([bytes]);
    expect(whole.map((e) => e.data)).toEqual([
      '{"delta":"こんにちは🌸"}',
      '{"choices":[{"delta":{"content":"é ñ 漢字"}}]}',
      "multi\nline",
      "[DONE]",
    ]);
    for (const c of FIXED_CHUNKINGS) {
      expect(await collect(splitAt(bytes, c.cuts(bytes))), c.name).toEqual(whole);
    }
    await fc.assert(
      fc.asyncProperty(randomChunking, async (c) => {
        expect(await collect(splitAt(bytes, c.cuts(bytes))), c.name).toEqual(whole);
      }),
      { numRuns: 300 },
    );
  });

  it("raises StreamStalledError when no byte arrives within the idle timeout", async () => {
    const never = new ReadableStream<Uint8Array>({ start() {} });
    const it = readSse(never, { idleMs: 50 })[Symbol.asyncIterator]();
    await expect(it.next()).rejects.toBeInstanceOf(StreamStalledError);
  });
});
