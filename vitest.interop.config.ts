import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { defineConfig } from "vitest/config";

// The interop suite (`npm run test:interop`): the stage and the model-file check on third-party VRM files
// (the VRM specification's samples, three-vrm's example .vrma) read from ../shared/fixtures beside the clone.
// Not part of `npm test`, which runs on models the project generates. Without the samples it runs nothing
// and fails, saying so in one line: an absent suite must never look like a passed one.
const SHARED = resolve(import.meta.dirname, "../shared/fixtures");
if (!existsSync(SHARED)) {
  console.error(`[test:interop] not run: ${SHARED} does not exist (the third-party VRM samples live there)`);
  process.exit(2);
}

export default defineConfig({
  test: {
    name: "interop",
    include: ["src/**/*.interop.test.ts", "host/**/*.interop.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
