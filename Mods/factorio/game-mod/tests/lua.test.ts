// Runs the coop-agent game mod's Lua tests under lua5.2 (the game's Lua version) as a real
// child process: one vitest test per Lua case, failing with the Lua failure message.
import { execFile, execFileSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";

const LUA = "lua5.2";
const RUNNER = "tests/run.lua";
const testsDir = dirname(fileURLToPath(import.meta.url));
const modRoot = dirname(testsDir);

type CaseLine = { file: string; name: string; ok?: boolean; error?: string };
type FileRun = { cases: Map<string, CaseLine>; code: number | null; stdout: string; stderr: string };

/** Reads the runner's "@@case {json}" lines. */
function parseCases(stdout: string): CaseLine[] {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith("@@case "))
    .map((line) => JSON.parse(line.slice("@@case ".length)) as CaseLine);
}

/** Runs one spec file under the runner; resolves whatever the exit code. */
function runSpec(spec: string): Promise<FileRun> {
  return new Promise((resolve) => {
    execFile(
      LUA,
      [RUNNER, spec],
      { cwd: modRoot, encoding: "utf8", maxBuffer: 64 * 1024 * 1024, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : null) : 0;
        const cases = new Map(parseCases(stdout).map((c) => [c.name, c]));
        resolve({ cases, code, stdout, stderr });
      },
    );
  });
}

const specs = readdirSync(testsDir)
  .filter((f) => f.endsWith("_spec.lua"))
  .sort()
  .map((f) => `tests/${f}`);

// Listing is a real lua5.2 run too: it loads every spec file, so a file that does not even
// load shows up as its "(load)" case below.
function listCases(): CaseLine[] {
  try {
    return parseCases(
      execFileSync(LUA, [RUNNER, "--list", ...specs], { cwd: modRoot, encoding: "utf8", timeout: 60_000 }),
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      throw new Error(
        `${LUA} is not installed: run scripts/setup-system.sh (it reads game-mod/apt-packages.txt)`,
      );
    }
    throw err;
  }
}
const listed = listCases();

test("the Lua suite has spec files and cases", () => {
  expect(specs.length).toBeGreaterThan(0);
  expect(listed.length).toBeGreaterThan(specs.length);
});

for (const spec of specs) {
  describe(spec, () => {
    let run: FileRun;
    beforeAll(async () => {
      run = await runSpec(spec);
    }, 120_000);

    for (const c of listed.filter((l) => l.file === spec)) {
      test(c.name, () => {
        const result = run.cases.get(c.name);
        expect(result, `case not reported; stderr:\n${run.stderr}`).toBeDefined();
        expect(result?.ok, result?.error).toBe(true);
      });
    }

    test("the runner reports every case and exits 0", () => {
      const load = run.cases.get("(load)");
      expect(load?.error ?? "", "the spec file failed to load").toBe("");
      expect(run.stdout).toMatch(/^\d+ passed, 0 failed$/m);
      expect(run.code, run.stderr).toBe(0);
    });
  });
}
