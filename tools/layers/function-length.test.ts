/**
 * No function in the tree's code (src/, host/, shell/, Mods/, tools/, bench/; TypeScript and the shells' plain
 * JavaScript alike) longer than 150 lines (issue 30), read with the TypeScript compiler's own parser. A
 * function's length runs from its first line to its last, nested closures included: a screen built as one
 * closure of closures counts whole.
 *
 * Test files are left out: their long functions are `describe` callbacks that group cases, not code a reader
 * has to hold in their head at once.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const MAX_LINES = 150;

/** The folders measured, relative to the repository. */
const MEASURED = ["src", "host", "shell", "Mods", "tools", "bench"];

/**
 * Longer functions that earned their length: a table read top to bottom (a keyframe table, say), not logic.
 * `path#name` -> why. Keep it short.
 */
const EARNED: Record<string, string> = {};

interface LongFunction {
  /** `path#name`, the name of the function or of what holds it (`<anonymous>` when nothing names it). */
  id: string;
  line: number;
  lines: number;
}

/** What names a function: its own name, or the variable, property or method it is assigned to. */
function nameOf(fn: ts.SignatureDeclaration, sf: ts.SourceFile): string {
  if (fn.name) return fn.name.getText(sf);
  const parent = fn.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.initializer === fn)
    return parent.name.getText(sf);
  return "<anonymous>";
}

/** Every function in `source` longer than `max` lines. */
function longFunctions(path: string, source: string, max = MAX_LINES): LongFunction[] {
  const kind = /\.[mc]?js$/.test(path) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, kind);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > max) found.push({ id: `${path}#${nameOf(node, sf)}`, line: first + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** The TypeScript and JavaScript sources under `dir` (relative to the repository), tests, declarations and build output left out. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f).split("\\").join("/"))
    .filter((f) => !/(^|\/)(node_modules|dist)\//.test(f))
    .filter((f) => /\.([mc]?ts|tsx|[mc]?js)$/.test(f) && !/\.d\.ts$|\.test\.[mc]?[jt]sx?$/.test(f));
}

describe("function length", () => {
  it("measures a function from its first line to its last, nested closures included", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  const v${i} = ${i};`).join("\n");
    const source = [
      `export function outer() {`,
      `  const inner = () => {`,
      body(MAX_LINES - 2),
      `  };`,
      `}`,
      `const short = () => {`,
      body(MAX_LINES - 2),
      `};`,
    ].join("\n");
    // outer: MAX_LINES + 2 lines; inner and short: exactly MAX_LINES, which is allowed.
    expect(longFunctions("x.ts", source)).toEqual([{ id: "x.ts#outer", line: 1, lines: MAX_LINES + 2 }]);
    expect(longFunctions("x.ts", source, MAX_LINES - 1).map((f) => f.id)).toEqual([
      "x.ts#outer",
      "x.ts#inner",
      "x.ts#short",
    ]);
  });

  it("reads JavaScript too (the shells' plain JavaScript)", () => {
    const source = ["function shell() {", "  let a = 0;", ...Array(MAX_LINES).fill("  a++;"), "}"].join("\n");
    expect(longFunctions("core.js", source).map((f) => f.id)).toEqual(["core.js#shell"]);
  });

  const long = MEASURED.flatMap(sources).flatMap((f) =>
    longFunctions(f, readFileSync(join(ROOT, f), "utf8")),
  );
  const describeAll = (fs: LongFunction[]) => fs.map((f) => `${f.id} (line ${f.line}): ${f.lines} lines`);

  it("measures every folder of code, JavaScript included", () => {
    const files = MEASURED.flatMap(sources);
    for (const dir of MEASURED) expect(files.some((f) => f.startsWith(`${dir}/`))).toBe(true);
    expect(files).toContain("shell/core.js");
  });

  it(`no function in ${MEASURED.join("/, ")}/ is longer than ${MAX_LINES} lines`, () => {
    const exempt = new Set(Object.keys(EARNED));
    expect(describeAll(long.filter((f) => !exempt.has(f.id)))).toEqual([]);
  });

  it("every exemption is still needed: each listed function exists and is longer than the cap", () => {
    const ids = new Set(long.map((f) => f.id));
    expect(Object.keys(EARNED).filter((id) => !ids.has(id))).toEqual([]);
  });
});
