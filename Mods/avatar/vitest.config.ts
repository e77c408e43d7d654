import { defineConfig } from "vitest/config";

// Its own project so `npm test -w Mods/avatar` runs the mod alone; the tests start the real ingress, the
// real MCP server, the router and one child process, so the timeouts are generous.
export default defineConfig({
  test: {
    name: "avatar",
    root: import.meta.dirname,
    include: ["src/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
