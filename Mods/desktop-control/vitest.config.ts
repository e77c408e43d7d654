import { defineConfig } from "vitest/config";

// Its own project so `npm test -w Mods/desktop-control` runs the mod alone. The Linux tests start a
// real Xvfb, openbox and X clients, so the timeouts are generous; files run one at a time because
// each starts its own X server and the machine is small.
export default defineConfig({
  test: {
    name: "desktop-control",
    root: import.meta.dirname,
    include: ["src/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
});
