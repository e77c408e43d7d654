// The file worker's wire format, shared by both ends: each message is a frame of
// [u32 header length][u32 payload length][header JSON][payload bytes] (big-endian lengths), so file
// contents travel as raw bytes beside a small JSON header.

/** One frame of a header object and optional payload bytes. */
export function encodeFrame(header, payload) {
  const head = Buffer.from(JSON.stringify(header));
  const body = payload ?? Buffer.alloc(0);
  const prefix = Buffer.alloc(8);
  prefix.writeUInt32BE(head.length, 0);
  prefix.writeUInt32BE(body.length, 4);
  return Buffer.concat([prefix, head, body]);
}

/** Splits a byte stream into frames: push chunks, get {header, payload} for each complete frame. */
export class FrameReader {
  #chunks = [];
  #size = 0;

  /** Adds a chunk and returns every frame it completed (a large payload is joined once, when whole). */
  push(chunk) {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    const frames = [];
    while (this.#size >= 8) {
      if (this.#chunks[0].length < 8) this.#flatten();
      const first = this.#chunks[0];
      const headLen = first.readUInt32BE(0);
      const total = 8 + headLen + first.readUInt32BE(4);
      if (this.#size < total) break;
      this.#flatten();
      const buf = this.#chunks[0];
      const header = JSON.parse(buf.subarray(8, 8 + headLen).toString("utf8"));
      const payload = buf.subarray(8 + headLen, total);
      const rest = buf.subarray(total);
      this.#chunks = rest.length > 0 ? [rest] : [];
      this.#size = rest.length;
      frames.push({ header, payload });
    }
    return frames;
  }

  #flatten() {
    if (this.#chunks.length > 1) this.#chunks = [Buffer.concat(this.#chunks, this.#size)];
  }
}
