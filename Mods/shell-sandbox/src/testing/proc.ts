// Test helpers that look at real processes through /proc.
import { randomInt } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";

/** A `sleep` argument no other process on the machine uses, so /proc tells a test's sleeps apart. */
export const uniqueSleep = (): string => String(900_000 + randomInt(99_999));

/** Live (non-zombie) processes whose argv is exactly `argv`. */
export async function processesRunning(argv: string[]): Promise<number[]> {
  const want = `${argv.join("\0")}\0`;
  const found: number[] = [];
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const [cmdline, stat] = await Promise.all([
        readFile(`/proc/${name}/cmdline`, "utf8"),
        readFile(`/proc/${name}/stat`, "utf8"),
      ]);
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
      if (cmdline === want && state !== "Z") found.push(Number(name));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Polls until no process has `argv` or `deadlineMs` passes; returns those still running. */
export async function processesAfterDeath(argv: string[], deadlineMs = 5000): Promise<number[]> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const left = await processesRunning(argv);
    if (left.length === 0 || Date.now() > until) return left;
    await new Promise((r) => setTimeout(r, 100));
  }
}
