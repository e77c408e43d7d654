// The desktop-control command line's start-up failures, as a real child process.
import { once } from "node:events";
import { type AddressInfo, createServer } from "node:net";
import { LAUNCH_MESSAGES } from "@yui/mod-kit";
import { describe, expect, it } from "vitest";
import { startMod } from "./testing/mcp.ts";

describe("desktop-control's command line", () => {
  it("exits 1 with one line on stderr, no preflight and no stack, when its port is taken", async () => {
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
    const port = (held.address() as AddressInfo).port;
    try {
      const proc = await startMod(["--port", String(port)], { ...process.env, DISPLAY: "" }, false);
      const [code] = await once(proc.child, "close");
      expect(code).toBe(1);
      expect(proc.stderr()).toBe(`${LAUNCH_MESSAGES.portInUse(port)}\n`);
      expect(proc.stderr()).toBe(
        `error: port ${port} on 127.0.0.1 is already in use; choose another with --port N\n`,
      );
      expect(proc.stderr()).not.toMatch(/^\s+at /m);
      expect(proc.stdout()).toBe("");
    } finally {
      held.close();
    }
  });

  it("quotes at most 200 characters of a bad setting and exits 1 with that one line", async () => {
    const raw = "9".repeat(100_000); // an environment string may be at most 128 KiB on Linux
    const proc = await startMod(["--port", "0"], { ...process.env, WITNESS_RETENTION_DAYS: raw }, false);
    const [code] = await once(proc.child, "close");
    expect(code).toBe(1);
    expect(proc.stderr()).toBe(
      `error: WITNESS_RETENTION_DAYS must be a whole number of days, got '${"9".repeat(200)}…(100000 characters)'\n`,
    );
  });
});
