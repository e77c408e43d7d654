// The binary glTF (GLB) container, as far as YUI reads it without loading a model: the 12-byte header and the
// JSON chunk that follows it (glTF 2.0 §4.4). Pure: the browser, the host and the generator's tests use it.

const GLB_MAGIC = 0x46546c67; // "glTF"
const JSON_CHUNK = 0x4e4f534a; // "JSON"

/** What a GLB's JSON chunk read to: the parsed JSON, or why not ("notGlb": no glTF header; "corrupt": no readable JSON chunk). */
export type GlbJson =
  | { ok: true; json: unknown; version: number; length: number }
  | { ok: false; reason: "notGlb" | "corrupt" };

/** Reads the header and parses the JSON chunk of `bytes`; the header's version and length are returned, not judged. */
export function readGlbJson(bytes: Uint8Array): GlbJson {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 20 || view.getUint32(0, true) !== GLB_MAGIC) return { ok: false, reason: "notGlb" };
  const jsonLength = view.getUint32(12, true);
  if (view.getUint32(16, true) !== JSON_CHUNK || 20 + jsonLength > bytes.byteLength) {
    return { ok: false, reason: "corrupt" };
  }
  try {
    const json: unknown = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)));
    return { ok: true, json, version: view.getUint32(4, true), length: view.getUint32(8, true) };
  } catch {
    return { ok: false, reason: "corrupt" };
  }
}
