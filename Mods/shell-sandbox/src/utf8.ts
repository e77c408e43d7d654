// Output caps count bytes, but a cap must never split a UTF-8 character: the agent would see a
// replacement character that the command never printed.

/** Length of `buf` without a trailing UTF-8 sequence that is cut short; use it to cap bytes safely. */
export function completeUtf8Length(buf: Uint8Array): number {
  const n = buf.length;
  // A sequence is at most 4 bytes, so its lead byte is within the last 4.
  let lead = n - 1;
  while (lead >= 0 && lead >= n - 4 && ((buf[lead] ?? 0) & 0xc0) === 0x80) lead--;
  if (lead < 0 || lead < n - 4) return n; // only continuation bytes: invalid, not cut short; keep them
  const b = buf[lead] ?? 0;
  const want = b < 0x80 ? 1 : (b & 0xe0) === 0xc0 ? 2 : (b & 0xf0) === 0xe0 ? 3 : (b & 0xf8) === 0xf0 ? 4 : 1;
  return lead + want > n ? lead : n;
}

/** Collects a stream's bytes up to a cap, counting (and dropping) the rest; decode with text(). */
export class CappedBytes {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private total = 0;

  constructor(private readonly cap: number) {}

  /** Adds a chunk: what still fits under the cap is kept, the rest only counted. */
  push(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.cap - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(part);
    this.kept += part.length;
  }

  /** True when bytes were dropped at the cap. */
  get truncated(): boolean {
    return this.total > this.kept;
  }

  /** The kept bytes as text: cut back to a whole character when the cap was hit, invalid bytes as U+FFFD. */
  text(): string {
    const buf = Buffer.concat(this.chunks, this.kept);
    // Only a cut made by the cap is ours to hide; an incomplete tail the command itself ended with stays visible.
    const end = this.truncated ? completeUtf8Length(buf) : buf.length;
    return new TextDecoder("utf-8", { fatal: false }).decode(buf.subarray(0, end));
  }
}
