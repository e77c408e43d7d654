import { defineConfig } from "vitest/config";

// The factorio Mod's tests plus the coop-agent game mod's (a vitest file that runs the Lua tests under lua5.2).
export default defineConfig({
  test: {
    name: "factorio",
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "game-mod/tests/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
