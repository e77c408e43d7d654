// Types of frames.mjs.
export function encodeFrame(header: object, payload?: Buffer): Buffer;
export class FrameReader {
  push(chunk: Buffer): { header: Record<string, unknown>; payload: Buffer }[];
}
