import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCharacter } from "../../tools/vrm-gen/character.ts";
import { writeVrm } from "../../tools/vrm-gen/write-vrm.ts";
import { FIXTURES } from "./harness/serve.ts";
import { checkModelBytes, MODEL_FILE_ERRORS } from "./model-file.ts";

const fixture = (name: string) => readFile(resolve(FIXTURES, name)).then((b) => new Uint8Array(b));

/** A GLB whose JSON chunk holds `json` (for the VRM 0.x and damaged cases no fixture covers). */
function glb(json: string, declaredLength?: number): Uint8Array {
  const body = new TextEncoder().encode(json.padEnd(Math.ceil(json.length / 4) * 4, " "));
  const out = new Uint8Array(20 + body.byteLength);
  const v = new DataView(out.buffer);
  v.setUint32(0, 0x46546c67, true);
  v.setUint32(4, 2, true);
  v.setUint32(8, out.byteLength, true);
  v.setUint32(12, declaredLength ?? body.byteLength, true);
  v.setUint32(16, 0x4e4f534a, true);
  out.set(body, 20);
  return out;
}

describe("checking a user's model file", () => {
  it("accepts VRM 1.0 files and reads their name", async () => {
    expect(checkModelBytes(await fixture("VRMC_vrm_expressions_isBinary_Overrides.vrm"))).toEqual({
      ok: true,
      specVersion: "1",
      name: "isBinary overrides",
    });
    expect(checkModelBytes(await writeVrm(buildCharacter()))).toEqual({
      ok: true,
      specVersion: "1",
      name: "Yui",
    });
  });

  it("accepts VRM 0.x files", () => {
    const v0 = glb(
      JSON.stringify({ asset: { version: "2.0" }, extensions: { VRM: { meta: { title: "Old" } } } }),
    );
    expect(checkModelBytes(v0)).toEqual({ ok: true, specVersion: "0", name: "Old" });
  });

  it("rejects what is not a VRM with the right message", async () => {
    expect(checkModelBytes(new Uint8Array())).toEqual({ ok: false, error: MODEL_FILE_ERRORS.empty });
    expect(checkModelBytes(new TextEncoder().encode("hello, this is a text file"))).toEqual({
      ok: false,
      error: MODEL_FILE_ERRORS.notGlb,
    });
    expect(checkModelBytes(await fixture("test.vrma"))).toEqual({
      ok: false,
      error: MODEL_FILE_ERRORS.notVrm,
    });
    expect(checkModelBytes(glb("{not json"))).toEqual({ ok: false, error: MODEL_FILE_ERRORS.corrupt });
    expect(checkModelBytes(glb("{}", 4096))).toEqual({ ok: false, error: MODEL_FILE_ERRORS.corrupt });
    const truncated = (await fixture("VRMC_materials_mtoon_UV_Animation_Test.vrm")).subarray(0, 200);
    expect(checkModelBytes(truncated)).toEqual({ ok: false, error: MODEL_FILE_ERRORS.corrupt });
  });
});
