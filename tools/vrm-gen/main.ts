import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { buildCharacter } from "./character.ts";
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

/** Writes the same character as a VRM 0.x file (tests of the 0.x loading path; never shipped); returns the byte count. */
export async function generateVrm0(out: string): Promise<number> {
  return save(out, await writeVrm0(buildCharacter()));
}

// CLI: npx tsx tools/vrm-gen/main.ts [--out <path>] [--vrm0]
if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf("--out");
  const out = resolve(i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : DEFAULT_OUT);
  const generate = process.argv.includes("--vrm0") ? generateVrm0 : generateDefaultVrm;
  generate(out).then(
    (n) => console.log(`[vrm-gen] wrote ${out} (${n} bytes)`),
    (err: unknown) => {
      console.error(`[vrm-gen] failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
