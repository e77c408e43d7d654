// The Electron shell's bundle, built with the real esbuild: what Electron would load. Electron itself
// cannot run here (its binary is not downloaded), so the bundle is checked for what it requires.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUNDLE_PACKAGE, bundleElectronShell } from "./launch.ts";

const out = mkdtempSync(join(tmpdir(), "yui-electron-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

/** The modules a CommonJS bundle requires. */
const requires = (file: string) =>
  [...new Set([...readFileSync(file, "utf8").matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!))].sort();

describe("the Electron shell's bundle", () => {
  const b = bundleElectronShell(out);

  it("main.cjs requires only electron and Node's own modules (zod and the contract's values stay out)", () => {
    const mods = requires(b.main);
    expect(mods).toContain("electron");
    const builtins = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);
    expect(mods.filter((m) => m !== "electron" && !builtins.has(m))).toEqual([]);
    expect(readFileSync(b.main, "utf8")).not.toMatch(/zod/);
  });

  it("preload.cjs, for a sandboxed page, requires electron alone", () => {
    expect(requires(b.preload)).toEqual(["electron"]);
  });

  it("both are valid scripts, and the package names the app YUI with main.cjs", () => {
    execFileSync(process.execPath, ["--check", b.main]);
    execFileSync(process.execPath, ["--check", b.preload]);
    expect(JSON.parse(readFileSync(join(out, "package.json"), "utf8"))).toEqual(BUNDLE_PACKAGE);
  });
});
