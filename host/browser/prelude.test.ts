import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BROWSER_TIMINGS } from "../../src/io/browser/results.ts";
import { buildScript, CODE_LINE_OFFSET, spaceName } from "./prelude.ts";

// The spec's prelude, verbatim, with its placeholders; the code replaces the comment line.
const SPEC_PRELUDE = `const __yuiDeadline = setTimeout(() => { console.error("[yui] deadline"); process.exit(124); }, 25000);
try {
  const task = await taskSpace("yui-<presetId>");
  let __yuiShot = 0;
  const screenshot = (page) => page.screenshot({ path: \`<shot folder>/\${String(++__yuiShot).padStart(3, "0")}.png\` });
  // code follows here, from line 6
} catch (e) {
  console.error(String(e?.stack ?? e));
  process.exit(1);
} finally {
  clearTimeout(__yuiDeadline);
}
`;

describe("buildScript", () => {
  it("starts from the prelude of the reference page", () => {
    const page = readFileSync(join(import.meta.dirname, "..", "..", "docs", "client-tools.md"), "utf8");
    const start = page.indexOf("const __yuiDeadline");
    expect(page.slice(start, page.indexOf("```", start))).toBe(SPEC_PRELUDE);
  });

  it("is byte-for-byte the spec's prelude with the space, folder and the spec's deadline filled in", () => {
    const code = 'console.log("a");\nconsole.log("b");';
    const script = buildScript({
      space: spaceName("alice"),
      shotFolder: "/tmp/yui-browser-1-2-3",
      deadlineMs: BROWSER_TIMINGS.deadlineMs,
      code,
    });
    const expected = SPEC_PRELUDE.replace("<presetId>", "alice")
      .replace("<shot folder>", "/tmp/yui-browser-1-2-3")
      .replace("  // code follows here, from line 6\n", `${code}\n`);
    expect(script).toBe(expected);
  });

  it("starts the code on line 6, so an error line is the code's line plus 5", () => {
    const script = buildScript({
      space: "yui-x",
      shotFolder: "/t",
      deadlineMs: 1000,
      code: "first();\nsecond();",
    });
    const lines = script.split("\n");
    expect(lines[5]).toBe("first();");
    expect(CODE_LINE_OFFSET).toBe(5);
    expect(lines.indexOf("second();") + 1).toBe(2 + CODE_LINE_OFFSET);
  });

  it("keeps a preset id inside its string literal", () => {
    const script = buildScript({
      space: spaceName('x");process.exit(9);("'),
      shotFolder: "/t",
      deadlineMs: 1,
      code: "",
    });
    expect(script.split("\n")[2]).toBe('  const task = await taskSpace("yui-x\\");process.exit(9);(\\"");');
  });

  it("escapes a folder path that would end or interpolate the template literal", () => {
    const DOLLAR = "$";
    const folder = `/tmp/a\`b${DOLLAR}{c}\\d`;
    const script = buildScript({ space: "yui-x", shotFolder: folder, deadlineMs: 1, code: "" });
    expect(script).toContain(`path: \`/tmp/a\\\`b\\${DOLLAR}{c}\\\\d/${DOLLAR}{String(++__yuiShot)`);
  });
});
