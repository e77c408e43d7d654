import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { FIXTURES } from "./harness/serve.ts";
import { checkModelBytes, MODEL_FILE_ERRORS } from "./model-file.ts";

// Interop suite (`npm run test:interop`): the model-file check on the third-party samples in
// ../shared/fixtures/vrm. `npm test` checks the same on generated models (model-file.test.ts).

const sample = (name: string) => readFile(resolve(FIXTURES, name)).then((b) => new Uint8Array(b));

describe("checking third-party model files", () => {
  it("accepts the VRM specification's samples and reads their names", async () => {
    for (const [file, name] of [
      ["VRMC_vrm_expressions_isBinary_Overrides.vrm", "isBinary overrides"],
      ["VRMC_vrm_expressions_isBinary_Overridden.vrm", "isBinary overridden"],
      ["VRMC_materials_mtoon_UV_Animation_Test.vrm", "VRMC_materials_mtoon UV Animation Test"],
    ]) {
      expect(checkModelBytes(await sample(file!)), file).toEqual({ ok: true, specVersion: "1", name });
    }
  });

  it("refuses three-vrm's example .vrma as a model, and a truncated sample as corrupt", async () => {
    expect(checkModelBytes(await sample("test.vrma"))).toEqual({
      ok: false,
      error: MODEL_FILE_ERRORS.notVrm,
    });
    const truncated = (await sample("VRMC_materials_mtoon_UV_Animation_Test.vrm")).subarray(0, 200);
    expect(checkModelBytes(truncated)).toEqual({ ok: false, error: MODEL_FILE_ERRORS.corrupt });
  });
});
