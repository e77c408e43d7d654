import { mkdir, rename, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import sharp from "sharp";
import { buildCharacter } from "./character.ts";
import { writeVrm } from "./write-vrm.ts";
import { writeVrm0 } from "./write-vrm0.ts";
import { writeVrma } from "./write-vrma.ts";

// The models the tests load, all generated here (no third-party file is needed by `npm test`). Each one
// covers what a VRM sample used to: the VRM specification's isBinary samples, its MToon UV animation sample,
// and three-vrm's example .vrma. They are written at test time into .cache/ and never committed.

/** Where the tests and benchmarks keep the generated models, relative to the repository root. */
export const TEST_MODELS_DIR = ".cache/vrm-test-models";

/** meta.name of each generated test model (the stage reports it once loaded). */
export const TEST_MODEL_NAMES = {
  default: "Yui",
  vrm0: "Yui",
  overrides: "Yui (binary happy overrides blink)",
  overridden: "Yui (binary blink overridden by happy)",
  mtoon: "Yui (small, MToon UV animation)",
} as const;

/** Uniform scale of the MToon model: a 0.6 size character, for framing "whatever the model's size". */
export const MTOON_SCALE = 0.6;
/** MToon UV animation speed factors of the MToon model's materials, as VRMC_materials_mtoon states them. */
export const MTOON_UV = {
  blouse: { scrollX: 0.5 },
  accent: { scrollY: 0.5 },
  sock: { rotation: 1 },
} as const;

/** A 32x32 PNG of 8-pixel checks, white and grey: scrolling it changes what is drawn. */
export function checkerPng(): Promise<Uint8Array> {
  const size = 32;
  const px = Buffer.alloc(size * size * 4);
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const v = ((x >> 3) + (y >> 3)) % 2 ? 255 : 110;
      px.set([v, v, v, 255], (y * size + x) * 4);
    }
  return sharp(px, { raw: { width: size, height: size, channels: 4 } })
    .png()
    .toBuffer()
    .then((b) => new Uint8Array(b));
}

/** Every test model's bytes, by the name the tests use. */
export async function buildTestModels(): Promise<Record<keyof typeof TEST_MODEL_NAMES | "vrma", Uint8Array>> {
  const model = buildCharacter();
  const png = await checkerPng();
  return {
    default: await writeVrm(model),
    vrm0: await writeVrm0(model),
    // As the VRM spec's isBinary_Overrides sample: a binary happy whose overrideBlink is "blend", so it
    // suppresses blink only once its value passes 0.5 (binary expressions snap at 0.5).
    overrides: await writeVrm(model, {
      name: TEST_MODEL_NAMES.overrides,
      expressions: { happy: { isBinary: true, overrideBlink: "blend" }, blink: { isBinary: false } },
    }),
    // As the isBinary_Overridden sample: happy blends blink away and blink is binary, so any happy above 0
    // scales blink below full weight, and a binary expression below full weight is off.
    overridden: await writeVrm(model, {
      name: TEST_MODEL_NAMES.overridden,
      expressions: { happy: { isBinary: false, overrideBlink: "blend" }, blink: { isBinary: true } },
    }),
    mtoon: await writeVrm(model, {
      name: TEST_MODEL_NAMES.mtoon,
      scale: MTOON_SCALE,
      textures: { blouse: png, accent: png, sock: png },
      uvAnimation: MTOON_UV,
    }),
    vrma: await writeVrma(),
  };
}

export type TestModels = Record<keyof typeof TEST_MODEL_NAMES | "vrma", string>;

/** Where writeTestModels puts each model under `repo` (or in `dir`). */
export function testModelPaths(repo: string, dir = join(repo, TEST_MODELS_DIR)): TestModels {
  const at = (file: string) => resolve(dir, file);
  return {
    default: at("default.vrm"),
    vrm0: at("vrm0.vrm"),
    overrides: at("overrides.vrm"),
    overridden: at("overridden.vrm"),
    mtoon: at("mtoon.vrm"),
    vrma: at("wave.vrma"),
  };
}

/**
 * Writes every test model into `dir` (default: TEST_MODELS_DIR under `repo`) and returns their paths. Each
 * file is written beside its place and renamed into it, so a test reading a model never sees half a file.
 */
export async function writeTestModels(repo: string, dir = join(repo, TEST_MODELS_DIR)): Promise<TestModels> {
  await mkdir(dir, { recursive: true });
  const bytes = await buildTestModels();
  const paths = testModelPaths(repo, dir);
  for (const [key, file] of Object.entries(paths) as Array<[keyof TestModels, string]>) {
    const tmp = `${file}.${process.pid}.tmp`;
    await writeFile(tmp, bytes[key]);
    await rename(tmp, file);
  }
  return paths;
}
