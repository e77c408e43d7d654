import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  BROWSER_RESULT,
  BROWSER_RESULT_PREFIX,
  BROWSER_TIMINGS,
  BROWSER_WARNING,
  DEADLINE_MARK,
  UNTRUSTED_LINE,
} from "./results.ts";

// The reference page (the spec, kept in docs/) is the contract; the table in results.ts must say the same.
const page = readFileSync(join(import.meta.dirname, "..", "..", "..", "docs", "client-tools.md"), "utf8");
const section = page.slice(page.indexOf("## browser"), page.indexOf("## rate_relation"));

function resultRows(): string[] {
  const table = section.slice(section.indexOf("Result strings (exact):"));
  return table
    .split("\n")
    .filter((line) => line.startsWith("| ") && !line.startsWith("| Result") && !line.startsWith("| ---"))
    .map((line) => line.split("|")[1]!.trim());
}

describe("the browser strings table", () => {
  it("holds exactly the result strings of the reference page's table", () => {
    const ours = [
      ...Object.values(BROWSER_RESULT),
      `${BROWSER_RESULT_PREFIX.skillFailed}<stderr>`,
      `${BROWSER_RESULT_PREFIX.failedToStart}<reason>`,
      `${BROWSER_RESULT_PREFIX.shotFolderFailed}<reason>`,
    ];
    expect(ours.sort()).toEqual(resultRows().sort());
  });

  it("carries the page's untrusted line, deadline line and settings warning word for word", () => {
    expect(section).toContain(UNTRUSTED_LINE);
    expect(section).toContain(`console.error("${DEADLINE_MARK}")`);
    expect(section).toContain(BROWSER_WARNING);
  });

  it("uses the page's timings: 25 s deadline, 28 s backstop, 32 s wait", () => {
    expect(section).toContain("The script stops itself at 25 s. Rust kills the CLI at 28 s");
    expect(section).toContain("waitMs is 32 s");
    expect(BROWSER_TIMINGS).toEqual({ deadlineMs: 25_000, backstopMs: 28_000, waitMs: 32_000 });
  });
});
