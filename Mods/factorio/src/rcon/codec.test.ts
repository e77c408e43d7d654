import { describe, expect, it } from "vitest";
import { encodePacket, MAX_PACKET_BYTES, PacketReader, PacketType, RconFramingError } from "./codec.ts";

describe("RCON framing", () => {
  it("decodes packets fed one byte at a time", () => {
    const bytes = Buffer.concat([
      encodePacket({ id: 7, type: PacketType.EXECCOMMAND, body: "/coop-rpc {}" }),
      encodePacket({ id: 8, type: PacketType.RESPONSE_VALUE, body: "héllo" }),
    ]);
    const reader = new PacketReader();
    const out = [];
    for (const b of bytes) out.push(...reader.push(Buffer.from([b])));
    expect(out).toEqual([
      { id: 7, type: PacketType.EXECCOMMAND, body: "/coop-rpc {}" },
      { id: 8, type: PacketType.RESPONSE_VALUE, body: "héllo" },
    ]);
  });

  it("decodes a reply far larger than 4096 bytes as one packet", () => {
    const body = "x".repeat(3_000_000);
    const out = new PacketReader().push(encodePacket({ id: 1, type: PacketType.RESPONSE_VALUE, body }));
    expect(out).toHaveLength(1);
    expect(out[0]!.body.length).toBe(body.length);
  });

  it("refuses a size that cannot be RCON", () => {
    const bad = Buffer.alloc(12);
    bad.writeInt32LE(MAX_PACKET_BYTES + 1, 0);
    expect(() => new PacketReader().push(bad)).toThrow(RconFramingError);
    const tiny = Buffer.alloc(12);
    tiny.writeInt32LE(3, 0);
    expect(() => new PacketReader().push(tiny)).toThrow(RconFramingError);
  });
});
