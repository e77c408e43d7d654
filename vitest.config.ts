import { configDefaults, defineConfig } from "vitest/config";

// One run covers the app (src/, host/, tools/, and tests/: the integration tests that start the host and drive
// src/ through it), the shells (shell/) and every mod, each mod being its own project with its own
// vitest.config.ts so `npm test -w Mods/<mod>` runs it alone. The shells' tests are a project of their own so
// that `npm test` (scripts/test.sh) can run them shuffled: each of them stands alone (issue 30), and vitest
// shuffles for a whole run only, not for one project.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "app",
          include: ["src/**/*.test.ts", "host/**/*.test.ts", "tools/**/*.test.ts", "tests/**/*.test.ts"],
          // Third-party files: the interop suite's (vitest.interop.config.ts, `npm run test:interop`).
          exclude: [...configDefaults.exclude, "**/*.interop.test.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "shell",
          include: ["shell/**/*.test.ts"],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      "Mods/*/vitest.config.ts",
    ],
  },
});
