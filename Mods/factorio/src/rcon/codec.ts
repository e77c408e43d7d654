// Source RCON framing, shared by the client and the stand-in game server used in tests.
// A packet is: int32 LE size (of what follows), int32 LE id, int32 LE type, body bytes, 0x00, 0x00.

/** Packet types. EXECCOMMAND and AUTH_RESPONSE share the value 2, as in the Source protocol. */
export const PacketType = {
  RESPONSE_VALUE: 0,
  EXECCOMMAND: 2,
  AUTH_RESPONSE: 2,
  AUTH: 3,
} as const;

export type Packet = { id: number; type: number; body: string };

// Factorio sends a reply of any size in one packet; anything past this is a broken stream, not a reply.
export const MAX_PACKET_BYTES = 64 * 1024 * 1024;
const HEADER_BYTES = 8; // id + type, counted in size
const MIN_SIZE = HEADER_BYTES + 2; // two trailing NULs

/** Encodes one packet (body as UTF-8) into the bytes to write on the socket. */
export function encodePacket(packet: Packet): Buffer {
  const body = Buffer.from(packet.body, "utf8");
  const size = HEADER_BYTES + body.length + 2;
  const out = Buffer.alloc(4 + size);
  out.writeInt32LE(size, 0);
  out.writeInt32LE(packet.id, 4);
  out.writeInt32LE(packet.type, 8);
  body.copy(out, 12);
  // The two trailing bytes are already zero from alloc.
  return out;
}

/** Raised when the byte stream cannot be RCON (bad size); the connection must be dropped. */
export class RconFramingError extends Error {
  override name = "RconFramingError";
}

/** Incremental decoder: push socket chunks in, take whole packets out. */
export class PacketReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  /** Adds bytes and returns every packet now complete, in order; throws RconFramingError on a bad size. */
  push(chunk: Buffer): Packet[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const packets: Packet[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const head = this.peek(4);
      const size = head.readInt32LE(0);
      if (size < MIN_SIZE || size > MAX_PACKET_BYTES) {
        throw new RconFramingError(
          `RCON packet size ${size} is out of range (${MIN_SIZE}..${MAX_PACKET_BYTES})`,
        );
      }
      if (this.buffered < 4 + size) break;
      const whole = this.take(4 + size);
      const id = whole.readInt32LE(4);
      const type = whole.readInt32LE(8);
      // Body ends at the first of the two terminating NULs.
      let end = 4 + size - 2;
      if (whole[end] !== 0) end = 4 + size - 1;
      packets.push({ id, type, body: whole.toString("utf8", 12, end) });
    }
    return packets;
  }

  private peek(n: number): Buffer {
    if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)];
    return this.chunks[0]!.subarray(0, n);
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return out;
  }
}
