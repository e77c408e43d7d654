/**
 * Byte chunkings for the stream tests: the same bytes cut into reads in the ways that break naive readers
 * (one byte per read, a cut between the CR and the LF of every CRLF, a cut inside every multi-byte UTF-8
 * character, and random cuts), and a fetch that hands a real response's body to the reader cut that way.
 */
import fc from "fast-check";

export const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);

/** Rewrites LF line endings as CRLF (servers such as sse-starlette send CRLF). */
export const crlf = (s: string): string => s.replace(/\r?\n/g, "\r\n");

/** Cuts bytes into reads at the given positions (any order, duplicates and out-of-range ignored). */
export function splitAt(bytes: Uint8Array, cuts: readonly number[]): Uint8Array[] {
  const at = [...new Set(cuts)].filter((c) => c > 0 && c < bytes.length).sort((a, b) => a - b);
  const parts: Uint8Array[] = [];
  let from = 0;
  for (const c of at) {
    parts.push(bytes.slice(from, c));
    from = c;
  }
  parts.push(bytes.slice(from));
  return parts;
}

/** A cut between the CR and the LF of every CRLF. */
export function crlfCuts(bytes: Uint8Array): number[] {
  const cuts: number[] = [];
  for (let i = 0; i + 1 < bytes.length; i++) if (bytes[i] === 0x0d && bytes[i + 1] === 0x0a) cuts.push(i + 1);
  return cuts;
}

/** A cut after every byte of a multi-byte UTF-8 character but its last: inside every such character. */
export function utf8Cuts(bytes: Uint8Array): number[] {
  const cuts: number[] = [];
  for (let i = 1; i < bytes.length; i++) if ((bytes[i]! & 0xc0) === 0x80) cuts.push(i);
  return cuts;
}

/** How one response body is cut into reads, chosen once its bytes are known. */
export type Chunking = { name: string; cuts: (bytes: Uint8Array) => number[] };

/** The fixed chunkings every stream rule runs under. */
export const FIXED_CHUNKINGS: readonly Chunking[] = [
  { name: "whole", cuts: () => [] },
  { name: "1-byte reads", cuts: (b) => Array.from({ length: b.length }, (_, i) => i) },
  { name: "inside every CRLF", cuts: crlfCuts },
  { name: "inside every UTF-8 character", cuts: utf8Cuts },
  { name: "inside every CRLF and UTF-8 character", cuts: (b) => [...crlfCuts(b), ...utf8Cuts(b)] },
];

/** Random chunkings: each cut is a fraction of the body's length, so one value fits every body. */
export const randomChunking: fc.Arbitrary<Chunking> = fc
  .array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 48 })
  .map((fractions) => ({
    name: `random cuts at ${fractions.map((f) => f.toFixed(3)).join(",")}`,
    cuts: (b: Uint8Array) => fractions.map((f) => Math.floor(f * b.length)),
  }));

/**
 * A fetch over the real one that reads each response body whole and hands it on cut into the chunking's
 * reads, one piece per read; the status, headers and every other part of the response are the server's.
 */
export function rechunkingFetch(chunking: Chunking, base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const res = await base(input, init);
    if (!res.body) return res;
    const bytes = new Uint8Array(await res.arrayBuffer());
    const parts = splitAt(bytes, chunking.cuts(bytes));
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        const next = parts.shift();
        if (next) c.enqueue(next);
        else c.close();
      },
    });
    return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  };
}

/**
 * Runs a scenario under every fixed chunking and `randomRuns` random ones; the scenario gets the fetch to
 * hand its engine and the chunking's name (for its assertion messages).
 */
export async function underEveryChunking(
  scenario: (fetchFn: typeof fetch, name: string) => Promise<void>,
  randomRuns = 20,
): Promise<void> {
  for (const c of FIXED_CHUNKINGS) await scenario(rechunkingFetch(c), c.name);
  await fc.assert(
    fc.asyncProperty(randomChunking, (c) => scenario(rechunkingFetch(c), c.name)),
    { numRuns: randomRuns },
  );
}
