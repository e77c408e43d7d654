import { appendFileSync, mkdirSync } from "node:fs";
import path from "node:path";

/** One line of the JSONL outcome log. */
export type OutcomeLine = { type: string } & Record<string, unknown>;

/** Where outcome lines go: the JSONL file in production, an array in tests. */
export interface OutcomeSink {
  write(lines: readonly OutcomeLine[]): void;
}

/** Appends outcome lines to the JSONL file at outcome_log; a failing disk is reported, never fatal. */
export class JsonlOutcomeLog implements OutcomeSink {
  private madeDir = false;
  private warned = false;

  constructor(readonly file: string) {}

  /** Appends the lines in one write, each stamped with the time it was logged. */
  write(lines: readonly OutcomeLine[]): void {
    if (lines.length === 0) return;
    const at = new Date().toISOString();
    const text = lines.map((l) => JSON.stringify({ ...l, at })).join("\n");
    try {
      if (!this.madeDir) {
        mkdirSync(path.dirname(this.file), { recursive: true });
        this.madeDir = true;
      }
      appendFileSync(this.file, `${text}\n`);
    } catch (err) {
      // Losing log lines must not stop the cache or the doorbell: say it once and go on.
      if (!this.warned)
        process.stderr.write(`[factorio] cannot write ${this.file}: ${(err as Error).message}\n`);
      this.warned = true;
    }
  }
}
