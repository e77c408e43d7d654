import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { buildCharacter, VARIANTS } from "./character.ts";
import { writeVrm } from "./write-vrm.ts";
import { writeVrm0 } from "./write-vrm0.ts";

/** Default output path of the build, relative to the repository root. */
export const DEFAULT_OUT = ".cache/avatar/default.vrm";

async function save(out: string, bytes: Uint8Array): Promise<number> {
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, bytes);
  return bytes.byteLength;
}

/** Generates the default character and writes it to `out`; returns the byte count. */
export async function generateDefaultVrm(out: string): Promise<number> {
  return save(out, await writeVrm(buildCharacter()));
}

/** The file of generated character `variant` beside the default one (variant 0 is the default itself). */
export function variantFile(defaultFile: string, variant: number): string {
  return variant === 0 ? defaultFile : join(dirname(defaultFile), `variant-${variant}.vrm`);
}

/** Generates every other character of VARIANTS beside the default one; returns their files. */
export async function generateVariants(defaultFile: string): Promise<string[]> {
  const files: string[] = [];
  for (let v = 1; v < VARIANTS.length; v++) {
    const file = variantFile(defaultFile, v);
    await save(file, await writeVrm(buildCharacter(v)));
    files.push(file);
  }
  return files;
}

/** Writes the same character as a VRM 0.x file (tests of the 0.x loading path; never shipped); returns the byte count. */
export async function generateVrm0(out: string): Promise<number> {
  return save(out, await writeVrm0(buildCharacter()));
}

// CLI: npx tsx tools/vrm-gen/main.ts [--out <path>] [--vrm0]: the default character at <path> (the build's:
// .cache/avatar/default.vrm) and, unless --vrm0, the other generated characters beside it (variant-<n>.vrm).
if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf("--out");
  const out = resolve(i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : DEFAULT_OUT);
  const vrm0 = process.argv.includes("--vrm0");
  (async () => {
    const n = await (vrm0 ? generateVrm0 : generateDefaultVrm)(out);
    console.log(`[vrm-gen] wrote ${out} (${n} bytes)`);
    if (!vrm0) console.log(`[vrm-gen] wrote ${(await generateVariants(out)).join(", ")}`);
  })().catch((err: unknown) => {
    console.error(`[vrm-gen] failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
