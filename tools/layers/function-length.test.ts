/**
 * No function in src/ or host/ longer than 200 lines (issue 19: "no function longer than about 200 lines"), read
 * with the TypeScript compiler's own parser. A function's length runs from its first line to its last, nested
 * closures included: a screen built as one closure of closures counts whole.
 *
 * Test files are left out: their long functions are `describe` callbacks that group cases, not code a reader
 * has to hold in their head at once.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(import.meta.dirname, "..", "..");
const MAX_LINES = 200;

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
  const sf = ts.createSourceFile(path, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
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

/** The TypeScript sources under `dir` (relative to the repository), tests and declarations left out. */
function sources(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { recursive: true, encoding: "utf8" })
    .map((f) => join(dir, f).split("\\").join("/"))
    .filter((f) => !f.includes("node_modules/"))
    .filter((f) => /\.(ts|mts|cts|tsx)$/.test(f) && !/\.d\.ts$|\.test\.tsx?$/.test(f));
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

  const long = ["src", "host"]
    .flatMap(sources)
    .flatMap((f) => longFunctions(f, readFileSync(join(ROOT, f), "utf8")));
  const describeAll = (fs: LongFunction[]) => fs.map((f) => `${f.id} (line ${f.line}): ${f.lines} lines`);

  it(`no function in src/ or host/ is longer than ${MAX_LINES} lines`, () => {
    expect(describeAll(long)).toEqual([]);
  });
});
