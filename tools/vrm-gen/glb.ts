// Reading back the JSON chunk of a GLB the generator wrote, strictly (tests, and anything inspecting the output).
import { readGlbJson as readGlb } from "../../src/avatar/glb.ts";

/** The parsed JSON chunk of a glTF 2.0 binary; throws when the header or the chunk is not what GLB requires. */
export function readGlbJson(data: Uint8Array): unknown {
  const glb = readGlb(data);
  if (!glb.ok)
    throw new Error(glb.reason === "notGlb" ? "GLB magic is not 'glTF'" : "GLB JSON chunk is unreadable");
  if (glb.version !== 2) throw new Error("GLB container version is not 2");
  if (glb.length !== data.byteLength) throw new Error("GLB length field does not match the file");
  return glb.json;
}
