import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// One mod's dependencies never leak into another's runtime: every bare import a mod's code makes
// must be declared by that mod's own package.json, not merely resolvable through the hoisted tree.

const MODS_DIR = fileURLToPath(new URL("../../", import.meta.url));
const ROOT_PKG = JSON.parse(readFileSync(join(MODS_DIR, "..", "package.json"), "utf8")) as Pkg;

interface Pkg {
  name?: string;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

function tsFiles(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((e) => {
    if (e === "node_modules") return [];
    const p = join(dir, e);
    if (statSync(p).isDirectory()) return tsFiles(p);
    return p.endsWith(".ts") && !p.endsWith(".d.ts") ? [p] : [];
  });
}

/** The npm package a bare specifier names, or undefined for relative paths and Node builtins. */
function packageOf(spec: string): string | undefined {
  if (spec.startsWith(".") || spec.startsWith("/") || spec.startsWith("node:")) return undefined;
  const parts = spec.split("/");
  const name = spec.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? spec);
  return builtinModules.includes(name) ? undefined : name;
}

// Tests, benchmarks and test-support code (a testing/ folder or testing.ts) run only under the test runner.
const isTestFile = (f: string) =>
  /\.(test|bench)\.ts$/.test(f) || /\/(test|testing)\//.test(f) || f.endsWith("/testing.ts");

const mods = readdirSync(MODS_DIR).filter((d) => {
  try {
    return statSync(join(MODS_DIR, d, "package.json")).isFile();
  } catch {
    return false;
  }
});

describe("packageOf", () => {
  it.each([
    ["zod", "zod"],
    ["@modelcontextprotocol/server", "@modelcontextprotocol/server"],
    ["@modelcontextprotocol/server/stdio", "@modelcontextprotocol/server"],
    ["sharp/lib/x.js", "sharp"],
    ["./local.ts", undefined],
    ["node:http", undefined],
    ["fs", undefined],
  ])("maps %s to %s", (spec, name) => expect(packageOf(spec)).toBe(name));
});

/** Lists "<file> imports <pkg>" for every bare import in dir's src/ and bin/ that its package.json does not declare. */
function undeclaredImports(dir: string): string[] {
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Pkg;
  const runtime = new Set([
    ...Object.keys(pkg.dependencies ?? {}),
    ...Object.keys(pkg.peerDependencies ?? {}),
  ]);
  // Tests may also use the mod's devDependencies and the workspace's shared tooling (vitest, typescript).
  const testing = new Set([
    ...runtime,
    ...Object.keys(pkg.devDependencies ?? {}),
    ...Object.keys(ROOT_PKG.devDependencies ?? {}),
  ]);
  const undeclared: string[] = [];
  for (const file of [...tsFiles(join(dir, "src")), ...tsFiles(join(dir, "bin"))]) {
    const info = ts.preProcessFile(readFileSync(file, "utf8"), true, false);
    for (const { fileName } of info.importedFiles) {
      const name = packageOf(fileName);
      if (!name || name === pkg.name) continue;
      const allowed = isTestFile(file) ? testing : runtime;
      if (!allowed.has(name)) undeclared.push(`${file.slice(dir.length + 1)} imports ${name}`);
    }
  }
  return undeclared;
}

describe("undeclaredImports", () => {
  it("catches a runtime import declared only by another package, and allows test tooling in tests", () => {
    const dir = mkdtempSync(join(tmpdir(), "mod-deps-"));
    try {
      mkdirSync(join(dir, "src"));
      writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "m", dependencies: { zod: "4" } }));
      writeFileSync(
        join(dir, "src", "server.ts"),
        'import { z } from "zod";\nimport sharp from "sharp";\nimport type { X } from "@scope/pkg/sub";\n',
      );
      writeFileSync(join(dir, "src", "server.test.ts"), 'import { it } from "vitest";\nimport "ws";\n');
      // A method named require (x11's ext loader) is not an import.
      writeFileSync(
        join(dir, "src", "x.ts"),
        'declare const X: { require(n: string): void };\nX.require("randr");\n',
      );
      expect(undeclaredImports(dir).sort()).toEqual([
        "src/server.test.ts imports ws",
        "src/server.ts imports @scope/pkg",
        "src/server.ts imports sharp",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("every mod declares what its own code imports", () => {
  it.each(mods)("Mods/%s", (mod) => {
    expect(undeclaredImports(join(MODS_DIR, mod)), `Mods/${mod}: add these to its package.json`).toEqual([]);
  });
});
