// The Linux preflight reports a missing display and missing helpers the way macOS reports grants.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { msg, setup, ToolError } from "../messages.ts";
import { LINUX_HELPERS, LinuxPlatform } from "./linux.ts";

describe("the Linux preflight", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  it("reports an unset DISPLAY and every missing helper program", async () => {
    const empty = await mkdtemp(path.join(tmpdir(), "dc-path-"));
    dirs.push(empty);
    const lines = await new LinuxPlatform({ env: { PATH: empty } }).preflight();
    expect(lines).toEqual([
      setup.notAvailable("X display (DISPLAY is unset)", "every tool but get_activity_timeline"),
      ...Object.entries(LINUX_HELPERS).map(([h, tools]) => setup.notAvailable(`helper program ${h}`, tools)),
    ]);
    expect(lines.every((l) => l.startsWith("[setup] ") && l.includes(": NOT available ("))).toBe(true);
  });

  it("reports a display that cannot be reached", async () => {
    const lines = await new LinuxPlatform({ env: { PATH: process.env.PATH, DISPLAY: ":65000" } }).preflight();
    expect(lines).toEqual([setup.notAvailable("X display :65000", "every tool but get_activity_timeline")]);
  });

  it("answers a tool call without a display with a clear error", async () => {
    const p = new LinuxPlatform({ env: { PATH: process.env.PATH } });
    await expect(p.frontWindow()).rejects.toEqual(new ToolError(msg.noDisplay()));
    await expect(p.runningApps()).rejects.toThrow(msg.noDisplay());
  });

  it("answers a tool call with a missing helper by naming it", async () => {
    const empty = await mkdtemp(path.join(tmpdir(), "dc-path-"));
    dirs.push(empty);
    const p = new LinuxPlatform({ env: { PATH: empty, DISPLAY: ":65000" } });
    await expect(p.runningApps()).rejects.toEqual(new ToolError(msg.helperMissing("xprop")));
    await expect(p.idleMs()).rejects.toEqual(new ToolError(msg.helperMissing("xprintidle")));
  });
});
