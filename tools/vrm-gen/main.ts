import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { buildCharacter } from "./character.ts";
import { writeVrm } from "./write-vrm.ts";

/** Default output path of the build, relative to the repository root. */
export const DEFAULT_OUT = ".cache/avatar/default.vrm";

/** Generates the default character and writes it to `out`; returns the byte count. */
export async function generateDefaultVrm(out: string): Promise<number> {
  const bytes = await writeVrm(buildCharacter());
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, bytes);
  return bytes.byteLength;
}

// CLI: npx tsx tools/vrm-gen/main.ts [--out <path>]
if (import.meta.url === `file://${process.argv[1]}`) {
  const i = process.argv.indexOf("--out");
  const out = resolve(i > 0 && process.argv[i + 1] ? process.argv[i + 1]! : DEFAULT_OUT);
  generateDefaultVrm(out).then(
    (n) => console.log(`[vrm-gen] wrote ${out} (${n} bytes)`),
    (err: unknown) => {
      console.error(`[vrm-gen] failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exit(1);
    },
  );
}
