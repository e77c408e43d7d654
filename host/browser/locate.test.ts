import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { locateEgoBrowser } from "./locate.ts";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "yui-locate-test-"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

async function place(dir: string, mode: number): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, "ego-browser");
  await writeFile(file, "#!/bin/sh\n");
  await chmod(file, mode);
  return file;
}

describe("locateEgoBrowser", () => {
  it("prefers ~/.local/bin/ego-browser over PATH", async () => {
    const home = await place(join(root, "home", ".local", "bin"), 0o755);
    await place(join(root, "bin"), 0o755);
    expect(await locateEgoBrowser({ HOME: join(root, "home"), PATH: join(root, "bin") })).toBe(home);
  });

  it("falls back to the first executable on PATH", async () => {
    await place(join(root, "skip"), 0o644);
    const found = await place(join(root, "bin"), 0o755);
    const PATH = ["", join(root, "missing"), join(root, "skip"), join(root, "bin")].join(delimiter);
    expect(await locateEgoBrowser({ HOME: join(root, "home"), PATH })).toBe(found);
  });

  it("answers null when the CLI is in neither place", async () => {
    expect(await locateEgoBrowser({ HOME: join(root, "home"), PATH: join(root, "bin") })).toBeNull();
  });
});
