import { mkdir, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { describe, expect, it } from "vitest";
import {
  BROWSER_RESULT,
  droppedShotsNote,
  OVERLAP_NOTE,
  RESULT_CAP_BYTES,
  TRUNCATED_MARK,
  UNTRUSTED_LINE,
  unreadableShotsNote,
} from "../../src/io/browser/results.ts";
import type { ImageResult, ToolResult } from "../../src/io/chat/tools/client-tools.ts";
import { browserGuide, browserHostConfig, browserRun, registerBrowserCommands } from "./commands.ts";
import { buildScript } from "./prelude.ts";
import { type BrowserHarness, harnessPerTest, waitFor } from "./testing.ts";

const harness = harnessPerTest();

const run = (h: BrowserHarness, presetId: string, code: string) =>
  browserRun({ presetId, code }, {}, h.config);
const textOf = (r: ToolResult) => (typeof r === "string" ? r : r.text);
const bytes = (s: string) => Buffer.byteLength(s, "utf8");

async function jpegSize(
  dataUrl: string,
): Promise<[number | undefined, number | undefined, string | undefined]> {
  const meta = await sharp(Buffer.from(dataUrl.split(",")[1] ?? "", "base64")).metadata();
  return [meta.width, meta.height, meta.format];
}

async function leftoverFolders(dir: string): Promise<string[]> {
  return (await readdir(dir)).filter((n) => n.startsWith("yui-browser-"));
}

describe("browserHostConfig", () => {
  it("defaults to the spec's 25 s deadline, 28 s backstop, the OS temp directory and one set of locks", () => {
    const a = browserHostConfig();
    expect([a.deadlineMs, a.backstopMs, a.tmpDir, a.env]).toEqual([25_000, 28_000, tmpdir(), process.env]);
    expect(browserHostConfig().locks).toBe(a.locks);
    expect(browserHostConfig().kills).toBe(a.kills);
  });

  it("notes an overlap for the deadline plus the deadline-to-backstop slack after a kill: 28 s, scaled with them", () => {
    expect(browserHostConfig().overlapMs).toBe(28_000);
    expect(browserHostConfig({ deadlineMs: 1_000, backstopMs: 1_500 }).overlapMs).toBe(1_500);
    expect(browserHostConfig({ deadlineMs: 20_000, backstopMs: 5_000 }).overlapMs).toBe(20_000);
  });
});

describe("browser_run: the space lock", () => {
  it("runs one space's calls one at a time and different spaces side by side", async () => {
    const h = await harness();
    // alice waits (up to 10 s) for a flag that only bob's script writes: if the spaces did not run side by side,
    // the first alice run would never see it.
    const flag = JSON.stringify(join(h.standin.root, "bob-ran"));
    const aliceCode = [
      'const { existsSync } = await import("node:fs");',
      `for (let i = 0; i < 200 && !existsSync(${flag}); i++) await new Promise((r) => setTimeout(r, 50));`,
      `console.log(existsSync(${flag}) ? "side by side" : "alone");`,
      "await new Promise((r) => setTimeout(r, 300));",
    ].join("\n");
    const bobCode = `(await import("node:fs")).writeFileSync(${flag}, "");\nawait new Promise((r) => setTimeout(r, 300));`;
    const results = await Promise.all([
      run(h, "alice", aliceCode),
      run(h, "alice", aliceCode),
      run(h, "bob", bobCode),
    ]);
    expect(results[0]).toBe(`${UNTRUSTED_LINE}\nside by side`);
    const events = await h.standin.events();
    // Each CLI logs under its own pid: pair a space's opening with the exit of the CLI that ran it.
    const runs = events
      .filter((e) => e.event === "received")
      .map((r) => {
        const started = events.find((e) => e.event === "script-started" && e.pid === r.pid);
        const space = events.find(
          (e) => e.event === "taskSpace" && e.pid === (started as { scriptPid?: number })?.scriptPid,
        );
        const exit = events.find((e) => e.event === "exit" && e.pid === r.pid);
        return { name: space?.name, opened: space?.t ?? Number.NaN, exited: exit?.t ?? Number.NaN };
      })
      .sort((a, b) => a.opened - b.opened);
    const alice = runs.filter((r) => r.name === "yui-alice");
    const bob = runs.find((r) => r.name === "yui-bob");
    expect(alice).toHaveLength(2);
    // Same space: the second opened only after the first's CLI exited.
    expect(alice[1]!.opened).toBeGreaterThanOrEqual(alice[0]!.exited);
    // Different spaces: bob ran while the first alice run was still going.
    expect(bob!.opened).toBeLessThan(alice[0]!.exited);
    expect(h.config.locks.isHeld("yui-alice") || h.config.locks.isHeld("yui-bob")).toBe(false);
  });
});

describe("browser_run: the script", () => {
  it("writes the prelude-wrapped script to ego-browser nodejs's stdin, in the space yui-<presetId>", async () => {
    const h = await harness();
    const code = 'console.log("one");\nconsole.log("two");';
    await run(h, "carol", code);
    const events = await h.standin.events();
    const received = events.find((e) => e.event === "received");
    expect(received?.argv).toEqual(["nodejs"]);
    const folder = /path: `([^`]+)\/\$\{/.exec(received?.script ?? "")?.[1] ?? "";
    expect(folder).toMatch(new RegExp(`^${h.standin.tmp}/yui-browser-${process.pid}-\\d+-\\d+$`));
    expect(received?.script).toBe(
      buildScript({ space: "yui-carol", shotFolder: folder, deadlineMs: h.config.deadlineMs, code }),
    );
    expect(events.find((e) => e.event === "taskSpace")?.name).toBe("yui-carol");
  });

  it("returns a syntax error as a script failure with ego lite's message, at the code's line plus 5", async () => {
    const h = await harness();
    const text = textOf(await run(h, "alice", 'console.log("fine");\nconsole.log("x";'));
    expect(text.startsWith(`${BROWSER_RESULT.failed}\n${UNTRUSTED_LINE}\n`)).toBe(true);
    expect(text).toMatch(/script\.mjs:7\n/);
    expect(text).toContain("SyntaxError");
    expect(text.endsWith("ego-browser: exited with code 1")).toBe(true);
  });

  it("fails with EGO_TASK_SPACE_NAME_IN_USE in a space the user took over", async () => {
    const h = await harness({ env: { EGO_STANDIN_TAKEN: "yui-alice" } });
    const text = textOf(await run(h, "alice", 'console.log("after-takeover")'));
    expect(text.split("\n").slice(0, 2)).toEqual([BROWSER_RESULT.failed, UNTRUSTED_LINE]);
    expect(text).toContain("EGO_TASK_SPACE_NAME_IN_USE");
    expect(text).not.toContain("after-takeover");
  });

  it("rejects malformed arguments with an error instead of running anything", async () => {
    const h = await harness();
    await expect(browserRun({ presetId: 5, code: "x" }, {}, h.config)).rejects.toThrow(/invalid browser_run/);
    await expect(browserRun({ presetId: "a\nb", code: "x" }, {}, h.config)).rejects.toThrow(
      /invalid browser_run/,
    );
    await expect(browserRun(null, {}, h.config)).rejects.toThrow(/invalid browser_run/);
    expect(await h.standin.events()).toEqual([]);
  });
});

describe("browser_run: screenshots through the stand-in", () => {
  it("keeps the last 4 at most 1280 px wide as JPEG, states the dropped count, and deletes the folder", async () => {
    const h = await harness();
    const code = [
      "const page = await task.newPage({ width: 1920, height: 1080 });",
      "for (let i = 0; i < 6; i++) await screenshot(page);",
      'console.log("six");',
    ].join("\n");
    const result = (await run(h, "alice", code)) as ImageResult;
    expect(result.text).toBe(`${UNTRUSTED_LINE}\nsix\n${droppedShotsNote(2)}`);
    expect(await Promise.all(result.images.map(jpegSize))).toEqual(Array(4).fill([1280, 720, "jpeg"]));
    expect(await leftoverFolders(h.standin.tmp)).toEqual([]);
  });

  it("skips and names a corrupt screenshot, and keeps a small one at its size", async () => {
    const h = await harness();
    const code = [
      "await screenshot(await task.newPage({ width: 640, height: 480 }));",
      "await screenshot(await task.newPage({ corrupt: true }));",
    ].join("\n");
    const result = (await run(h, "alice", code)) as ImageResult;
    expect(result.text).toBe(`${UNTRUSTED_LINE}\n${unreadableShotsNote(["002.png"])}`);
    expect(await Promise.all(result.images.map(jpegSize))).toEqual([[640, 480, "jpeg"]]);
  });

  it("collects screenshots after a failure and after the deadline too", async () => {
    // Room for the screenshot before the deadline even on a loaded machine (sharp loads in the script).
    const h = await harness({ config: { deadlineMs: 4_000 } });
    const failed = (await run(
      h,
      "alice",
      "await screenshot(await task.newPage());\nthrow new Error('x');",
    )) as ImageResult;
    expect(failed.text.split("\n")[0]).toBe(BROWSER_RESULT.failed);
    expect(failed.images).toHaveLength(1);
    const late = (await run(
      h,
      "alice",
      "await screenshot(await task.newPage());\nawait new Promise((r) => setTimeout(r, 60_000));",
    )) as ImageResult;
    expect(late.text.split("\n")[0]).toBe(BROWSER_RESULT.deadline);
    expect(late.images).toHaveLength(1);
    expect(await leftoverFolders(h.standin.tmp)).toEqual([]);
  });

  it("works with a temp directory whose path holds template-literal characters", async () => {
    const h = await harness();
    const odd = join(h.standin.tmp, `a\`b${"$"}{c}\\d $e`);
    await mkdir(odd);
    h.config.tmpDir = odd;
    const result = (await run(h, "alice", "await screenshot(await task.newPage());")) as ImageResult;
    expect(result.images).toHaveLength(1);
    expect(await leftoverFolders(odd)).toEqual([]);
  });
});

describe("browser_run: the 64 KiB cap through the stand-in", () => {
  it("cuts huge output with [truncated] and keeps the exit line of a failure", async () => {
    const h = await harness();
    const code =
      'for (let i = 0; i < 5000; i++) console.log("line " + i + " " + "x".repeat(60));\nprocess.exit(2);';
    const text = textOf(await run(h, "alice", code));
    expect(bytes(text)).toBeLessThanOrEqual(RESULT_CAP_BYTES);
    expect(text.startsWith(`${BROWSER_RESULT.failed}\n${UNTRUSTED_LINE}\nline 0 `)).toBe(true);
    expect(text.endsWith(`\n${TRUNCATED_MARK}\nego-browser: exited with code 2`)).toBe(true);
  });

  it("never splits a multi-byte character at the cap boundary", async () => {
    const h = await harness();
    const room = RESULT_CAP_BYTES - bytes(`${UNTRUSTED_LINE}\n`) - bytes(`\n${TRUNCATED_MARK}`);
    // One byte short of the cap, a 3-byte character begins: it must go whole.
    const code = `process.stderr.write("a".repeat(${room - 1}) + "€".repeat(50));`;
    const text = textOf(await run(h, "alice", code));
    expect(text).toBe(`${UNTRUSTED_LINE}\n${"a".repeat(room - 1)}\n${TRUNCATED_MARK}`);
  });
});

describe("browser_run: the backstop", () => {
  it("kills the CLI, answers unknown with the screenshots so far, and the script runs on; the next host start deletes the folder it recreates", async () => {
    // Room before the kill for the first screenshot even on a loaded machine (sharp loads in the script).
    const h = await harness({ config: { deadlineMs: 20_000, backstopMs: 5_000 } });
    const code = [
      "const page = await task.newPage({ width: 1920, height: 1080 });",
      "await screenshot(page);",
      'console.log("blocking");',
      "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 6_500);",
      "await screenshot(page);",
    ].join("\n");
    const result = (await run(h, "alice", code)) as ImageResult;
    expect(result.text).toBe(BROWSER_RESULT.unknown);
    expect(await Promise.all(result.images.map(jpegSize))).toEqual([[1280, 720, "jpeg"]]);
    expect(await leftoverFolders(h.standin.tmp)).toEqual([]);
    // The script outlived its CLI and wrote a screenshot into a folder the host had already deleted.
    const exit = await waitFor(async () => (await h.standin.events()).find((e) => e.event === "script-exit"));
    expect(exit.code).toBe(0);
    expect(await leftoverFolders(h.standin.tmp)).toHaveLength(1);
    const mounted: string[] = [];
    await registerBrowserCommands(
      (name: string) => mounted.push(name),
      () => true,
      h.config,
    );
    expect(mounted).toEqual(["browser_run", "browser_guide"]);
    expect(await leftoverFolders(h.standin.tmp)).toEqual([]);
  });
});

describe("browser_run: a call after a backstop kill", () => {
  it("says in its result that the killed script may still run beside it, only in that space and only within the window", async () => {
    // The deadline is never reached here; the window is scaled through the configuration.
    const h = await harness({ config: { deadlineMs: 20_000, backstopMs: 4_000, overlapMs: 8_000 } });
    const blocking =
      'console.log("blocking");\nAtomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 9_000);';
    const killed = textOf(await run(h, "alice", blocking));
    expect(killed).toBe(BROWSER_RESULT.unknown);
    const killedAt = Date.now();

    // The same space right away: the note sits between the (absent) status line and the untrusted line.
    const next = textOf(await run(h, "alice", 'console.log("second");'));
    expect(next).toBe(`${OVERLAP_NOTE}\n${UNTRUSTED_LINE}\nsecond`);
    // And it was true: the killed script was still running when this call's script ran.
    const events = await h.standin.events();
    const secondStart = events.filter((e) => e.event === "script-started")[1]!.t as number;
    const firstExit = await waitFor(async () =>
      (await h.standin.events()).find((e) => e.event === "script-exit"),
    );
    expect(firstExit.t as number).toBeGreaterThan(secondStart);

    // A failure keeps its status line first; another space has no note.
    const failed = textOf(await run(h, "alice", "process.exit(3);"));
    expect(failed.split("\n").slice(0, 3)).toEqual([BROWSER_RESULT.failed, OVERLAP_NOTE, UNTRUSTED_LINE]);
    expect(textOf(await run(h, "bob", 'console.log("other space");'))).toBe(`${UNTRUSTED_LINE}\nother space`);

    // The note is never cut by the 64 KiB cap.
    const huge = textOf(await run(h, "alice", 'console.log("x".repeat(200_000));'));
    expect(huge.split("\n").slice(0, 2)).toEqual([OVERLAP_NOTE, UNTRUSTED_LINE]);
    expect(huge.endsWith(TRUNCATED_MARK)).toBe(true);
    expect(bytes(huge)).toBeLessThanOrEqual(RESULT_CAP_BYTES);

    // Past the window the same space answers as usual.
    await new Promise((r) => setTimeout(r, Math.max(0, killedAt + 8_000 - Date.now())));
    expect(textOf(await run(h, "alice", 'console.log("later");'))).toBe(`${UNTRUSTED_LINE}\nlater`);
  });
});

describe("browser_run: a kill after a kill", () => {
  it("answers unknown with the overlap note when the call killed at the backstop started inside the window", async () => {
    const h = await harness({ config: { deadlineMs: 20_000, backstopMs: 1_500, overlapMs: 6_000 } });
    const blocking = "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3_000);";
    expect(textOf(await run(h, "alice", blocking))).toBe(BROWSER_RESULT.unknown);
    expect(textOf(await run(h, "alice", blocking))).toBe(`${BROWSER_RESULT.unknown}\n${OVERLAP_NOTE}`);
    // Every orphaned script that started ends before the sandbox goes (a CLI killed early started none).
    await waitFor(async () => {
      const events = await h.standin.events();
      const exited = new Set(events.filter((e) => e.event === "script-exit").map((e) => e.pid));
      const started = events.filter((e) => e.event === "script-started");
      return started.every((e) => exited.has((e as { scriptPid?: number }).scriptPid ?? -1))
        ? true
        : undefined;
    });
  });
});

describe("browser_guide", () => {
  it("runs ego-browser skill and returns its stdout as is", async () => {
    const h = await harness();
    const guide = await browserGuide({}, {}, h.config);
    expect(guide).toContain("# ego lite browser SDK (stand-in)");
    expect((await h.standin.events()).map((e) => e.event)).toEqual(["skill"]);
  });
});
