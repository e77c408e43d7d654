import { configDefaults, defineConfig } from "vitest/config";

// One run covers the app (src/, host/, shell/, tools/, and tests/: the integration tests that start the
// host and drive src/ through it) and every mod, each mod being its own
// project with its own vitest.config.ts so `npm test -w Mods/<mod>` runs it alone.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "app",
          include: [
            "src/**/*.test.ts",
            "host/**/*.test.ts",
            "shell/**/*.test.ts",
            "tools/**/*.test.ts",
            "tests/**/*.test.ts",
          ],
          // Third-party files: the interop suite's (vitest.interop.config.ts, `npm run test:interop`).
          exclude: [...configDefaults.exclude, "**/*.interop.test.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      "Mods/*/vitest.config.ts",
    ],
  },
});
