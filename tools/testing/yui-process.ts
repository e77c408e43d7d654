/** Runs the `yui` command as a real child process for black-box tests. */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "..", "..");
const YUI = join(ROOT, "host", "bin", "yui.ts");

export interface YuiRun {
  code: number;
  /** stdout lines that are JSON objects, parsed. */
  lines: Record<string, unknown>[];
  stdout: string;
  stderr: string;
}

/**
 * Runs `yui <args>` with the store in dataDir and no OpenAI environment leaking in from the caller;
 * `env` adds to (and overrides) the inherited environment. `onSpawn` gets the child (to signal it, e.g. SIGINT).
 */
export function runYui(
  args: string[],
  dataDir: string,
  env: NodeJS.ProcessEnv = process.env,
  onSpawn?: (child: ChildProcess) => void,
): Promise<YuiRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", YUI, ...args], {
      cwd: ROOT,
      env: { ...env, YUI_DATA_DIR: dataDir, OPENAI_BASE_URL: "", OPENAI_API_KEY: "", OPENAI_MODEL: "" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    onSpawn?.(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      const lines = stdout
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l) as Record<string, unknown>);
      resolve({ code: code ?? -1, lines, stdout, stderr });
    });
  });
}
