import { readFileSync } from "node:fs";
import { chmod, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { harnessPerTest, waitFor } from "../host/browser/testing.ts";
import { BROWSER_TOOL_DESCRIPTION, createBrowserTool } from "../src/io/browser/browser-tool.ts";
import {
  BROWSER_RESULT,
  BROWSER_RESULT_PREFIX,
  BROWSER_TIMINGS,
  UNTRUSTED_LINE,
} from "../src/io/browser/results.ts";
import type { ToolResult } from "../src/io/chat/tools/client-tools.ts";
import { STANDIN_GUIDE_FILE } from "../tools/ego-browser-standin/install.ts";

const harness = harnessPerTest();

const textOf = (r: ToolResult) => (typeof r === "string" ? r : r.text);

// Every row of the spec's result table must be produced below, through the tool, the relay, the host and the
// stand-in CLI; the last test checks none was left out.
const produced = new Set<string>();
function row(result: string): string {
  produced.add(result);
  return result;
}

describe("browser tool: declaration", () => {
  const tool = createBrowserTool({
    readSwitch: async () => false,
    presetId: "p",
    relay: { run: async () => "", guide: async () => "" },
  });

  it("is named browser, switched by browser, and waits the client's 32 s", () => {
    expect([tool.name, tool.switchId, tool.waitMs]).toEqual(["browser", "browser", BROWSER_TIMINGS.waitMs]);
    expect(BROWSER_TIMINGS.waitMs).toBe(32_000);
  });

  it("declares code and guide, neither required, nothing else allowed", () => {
    expect(tool.parameters).toMatchObject({
      type: "object",
      properties: { code: { type: "string" }, guide: { type: "boolean" } },
      additionalProperties: false,
    });
    expect(tool.parameters.required).toBeUndefined();
  });

  it("states the contract in its description", () => {
    // Each bullet of the reference page's contract, word for word (the page is the one copy of the text).
    const page = readFileSync(join(import.meta.dirname, "..", "docs", "client-tools.md"), "utf8");
    const from = page.indexOf(
      "The tool description takes precedence over the guide and states the contract:",
    );
    const bullets = page
      .slice(from, page.indexOf("### Prelude", from))
      .split("\n")
      .filter((line) => line.startsWith("- "))
      .map((line) => line.slice(2).replace(/\.$/, ""));
    expect(bullets).toHaveLength(8);
    for (const bullet of bullets) expect(BROWSER_TOOL_DESCRIPTION).toContain(bullet);
    expect(BROWSER_TOOL_DESCRIPTION).toContain("takes precedence over the guide");
  });
});

describe("browser tool: arguments and switch", () => {
  it("answers browser is off while the switch is off, and runs nothing", async () => {
    const h = await harness();
    h.setSwitch(false);
    expect(await h.call({ code: "console.log(1)" })).toBe(row(BROWSER_RESULT.off));
    expect(await h.call({ guide: true })).toBe(BROWSER_RESULT.off);
    expect(h.invocations()).toBe(0);
  });

  it("reads the switch when the call runs, not when the tool was made", async () => {
    const h = await harness();
    const tool = h.tool();
    h.setSwitch(false);
    const ctx = { signal: new AbortController().signal, turnId: "t", presetId: "alice" };
    expect(await tool.run({ code: "console.log(1)" }, ctx)).toBe(BROWSER_RESULT.off);
    h.setSwitch(true);
    expect(await tool.run({ code: "console.log(1)" }, ctx)).toBe(`${UNTRUSTED_LINE}\n1`);
  });

  it("answers missing field code without a non-empty code, guide: false reading as no guide", async () => {
    const h = await harness();
    for (const args of [{}, { code: "" }, { code: "  \n" }, { guide: false }, { guide: false, code: "" }]) {
      expect(await h.call(args)).toBe(row(BROWSER_RESULT.missingCode));
    }
    expect(h.invocations()).toBe(0);
  });

  it("answers invalid field code for code beside guide: true, or code that is not a string", async () => {
    const h = await harness();
    for (const args of [{ guide: true, code: "console.log(1)" }, { code: 42 }, { guide: true, code: 7 }]) {
      expect(await h.call(args)).toBe(row(BROWSER_RESULT.invalidCode));
    }
    expect(h.invocations()).toBe(0);
  });
});

describe("browser tool: results through the host and the stand-in ego-browser", () => {
  it("answers a successful script with the untrusted line and its output, no status line", async () => {
    const h = await harness();
    const result = await h.call({ code: 'console.log("title:", await (await task.newPage()).title());' });
    expect(result).toBe(`${UNTRUSTED_LINE}\ntitle: stand-in page at about:blank`);
  });

  it("answers text with JPEG images when the script took screenshots", async () => {
    const h = await harness();
    const result = await h.call({
      code: 'const page = await task.newPage({ width: 1920, height: 1080 });\nawait screenshot(page);\nconsole.log("shot");',
    });
    expect(result).toEqual({
      text: `${UNTRUSTED_LINE}\nshot`,
      images: [expect.stringMatching(/^data:image\/jpeg;base64,/)],
    });
  });

  it("answers the script failed, with ego lite's message and exit line, when it throws", async () => {
    const h = await harness();
    const text = textOf(await h.call({ code: 'console.log("before");\nthrow new Error("boom");' }));
    const lines = text.split("\n");
    expect(lines.slice(0, 4)).toEqual([row(BROWSER_RESULT.failed), UNTRUSTED_LINE, "before", "Error: boom"]);
    // The throw is on the code's line 2: the stack names line 7.
    expect(lines[4]).toMatch(/script\.mjs:7:7$/);
    expect(lines.at(-1)).toBe("ego-browser: exited with code 1");
  });

  it("answers the script failed for a non-zero exit", async () => {
    const h = await harness();
    expect(await h.call({ code: 'console.log("partial");\nprocess.exit(3);' })).toBe(
      `${BROWSER_RESULT.failed}\n${UNTRUSTED_LINE}\npartial\nego-browser: exited with code 3`,
    );
  });

  it("answers the script was stopped at its time limit, with the logs so far, at the deadline", async () => {
    const h = await harness({ config: { deadlineMs: 1_000 } });
    const text = textOf(
      await h.call({ code: 'console.log("working");\nawait new Promise((r) => setTimeout(r, 60_000));' }),
    );
    expect(text).toBe(
      `${row(BROWSER_RESULT.deadline)}\n${UNTRUSTED_LINE}\nworking\n[yui] deadline\nego-browser: exited with code 124`,
    );
  });

  it("answers unknown when the host killed the CLI at its backstop", async () => {
    const h = await harness({ config: { deadlineMs: 20_000, backstopMs: 3_500 } });
    // Blocking the event loop keeps the script's own deadline from firing: only the backstop ends the call.
    const code =
      'console.log("blocking");\nAtomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5_000);';
    expect(await h.call({ code })).toBe(row(BROWSER_RESULT.unknown));
    // The killed CLI left the script running; let it end before the sandbox goes.
    expect((await h.standin.events()).some((e) => e.event === "exit")).toBe(false);
    await waitFor(async () =>
      (await h.standin.events()).some((e) => e.event === "script-exit") ? true : undefined,
    );
  });

  it("answers unknown when the client's wait passes first", async () => {
    const h = await harness({ waitMs: 1_500 });
    const code = "await new Promise((r) => setTimeout(r, 2_500));";
    expect(await h.call({ code })).toBe(BROWSER_RESULT.unknown);
    await waitFor(async () =>
      (await h.standin.events()).some((e) => e.event === "exit") ? true : undefined,
    );
  });

  it("answers turn stopped at once when the turn is cancelled mid-run", async () => {
    const h = await harness();
    const ac = new AbortController();
    const pending = h.call(
      { code: "await new Promise((r) => setTimeout(r, 2_000));" },
      { signal: ac.signal },
    );
    await waitFor(async () =>
      (await h.standin.events()).some((e) => e.event === "taskSpace") ? true : undefined,
    );
    ac.abort();
    expect(await pending).toBe(row(BROWSER_RESULT.turnStopped));
    // It answered before the script ended; the script then ran to its end.
    expect((await h.standin.events()).some((e) => e.event === "exit")).toBe(false);
    const exit = await waitFor(async () => (await h.standin.events()).find((e) => e.event === "exit"));
    expect(exit.code).toBe(0);
  });

  it("answers ego lite not found when the CLI is neither in ~/.local/bin nor on PATH", async () => {
    const h = await harness({ where: "none" });
    expect(await h.call({ code: "console.log(1)" })).toBe(row(BROWSER_RESULT.notFound));
    expect(await h.call({ guide: true })).toBe(BROWSER_RESULT.notFound);
  });

  it("finds the CLI on PATH", async () => {
    const h = await harness({ where: "path" });
    expect(await h.call({ code: "console.log(2)" })).toBe(`${UNTRUSTED_LINE}\n2`);
  });

  it("answers ego-browser failed to start when the CLI exists but cannot be started", async () => {
    const h = await harness();
    await chmod(h.standin.cli, 0o644);
    const result = await h.call({ code: "console.log(1)" });
    expect(result).toMatch(new RegExp(`^${reSource(row(BROWSER_RESULT_PREFIX.failedToStart))}.*EACCES`));
    expect(await h.call({ guide: true })).toMatch(
      new RegExp(`^${reSource(BROWSER_RESULT_PREFIX.failedToStart)}`),
    );
  });

  it("answers screenshot folder failed when the call's folder cannot be created", async () => {
    const h = await harness();
    const notADir = join(h.standin.root, "not-a-dir");
    await writeFile(notADir, "");
    h.config.tmpDir = notADir;
    const result = await h.call({ code: "console.log(1)" });
    expect(result).toMatch(new RegExp(`^${reSource(row(BROWSER_RESULT_PREFIX.shotFolderFailed))}ENOTDIR`));
  });

  it("returns the installed guide for guide: true, with neither status nor untrusted line", async () => {
    const h = await harness();
    const guide = await readFile(STANDIN_GUIDE_FILE, "utf8");
    expect(await h.call({ guide: true })).toBe(guide);
    expect(await h.call({ guide: true, code: "" })).toBe(guide);
  });

  it("answers ego-browser skill failed with its stderr when skill exits non-zero", async () => {
    const h = await harness({ env: { EGO_STANDIN_SKILL: "fail" } });
    expect(await h.call({ guide: true })).toBe(
      `${row(BROWSER_RESULT_PREFIX.skillFailed)}ego-browser: no guide is installed for this version`,
    );
  });

  it("answers ego-browser skill timed out when skill passes the backstop", async () => {
    const h = await harness({ env: { EGO_STANDIN_SKILL: "hang" }, config: { backstopMs: 1_500 } });
    expect(await h.call({ guide: true })).toBe(row(BROWSER_RESULT.skillTimedOut));
  });

  it("produced every row of the spec's result table", () => {
    expect([...produced].sort()).toEqual(
      [...Object.values(BROWSER_RESULT), ...Object.values(BROWSER_RESULT_PREFIX)].sort(),
    );
  });
});

function reSource(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
