import { defineConfig } from "vitest/config";

// Its own project so `npm test -w Mods/shell-sandbox` runs the mod alone; the tests spawn real
// shells, a real server and (in bwrap mode) real namespaces, so the timeouts are generous.
export default defineConfig({
  test: {
    name: "shell-sandbox",
    root: import.meta.dirname,
    include: ["src/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
