// Reading back the JSON chunk of a GLB the generator wrote (tests, and anything inspecting the output).

const GLTF_MAGIC = 0x46546c67; // "glTF"
const JSON_CHUNK = 0x4e4f534a; // "JSON"

/** The parsed JSON chunk of a glTF 2.0 binary; throws when the header or the chunk is not what GLB requires. */
export function readGlbJson(data: Uint8Array): unknown {
  if (data.byteLength < 20) throw new Error("GLB too short for a header");
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (view.getUint32(0, true) !== GLTF_MAGIC) throw new Error("GLB magic is not 'glTF'");
  if (view.getUint32(4, true) !== 2) throw new Error("GLB container version is not 2");
  if (view.getUint32(8, true) !== data.byteLength)
    throw new Error("GLB length field does not match the file");
  const jsonLength = view.getUint32(12, true);
  if (view.getUint32(16, true) !== JSON_CHUNK) throw new Error("GLB first chunk is not JSON");
  return JSON.parse(new TextDecoder().decode(data.subarray(20, 20 + jsonLength)));
}
