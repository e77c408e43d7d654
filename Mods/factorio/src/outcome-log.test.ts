import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { JsonlOutcomeLog } from "./outcome-log.ts";

describe("JSONL outcome log", () => {
  it("appends one JSON object per line, stamped with the time, creating the folder", () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), "olog-")), "deep", "outcomes.jsonl");
    const log = new JsonlOutcomeLog(file);
    log.write([{ type: "event", event: { seq: 1 } }]);
    log.write([
      { type: "session_reset", queue_length: null },
      { type: "event", event: { seq: 2 } },
    ]);
    const lines = readFileSync(file, "utf8")
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.type)).toEqual(["event", "session_reset", "event"]);
    expect(lines[1].queue_length).toBeNull();
    expect(Number.isNaN(Date.parse(lines[0].at))).toBe(false);
  });

  it("says once that it cannot write, and never throws", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "olog-"));
    const blocker = path.join(dir, "file");
    writeFileSync(blocker, "");
    const log = new JsonlOutcomeLog(path.join(blocker, "outcomes.jsonl"));
    const spy = vi.spyOn(process.stderr, "write").mockImplementation(() => true);
    try {
      expect(() => log.write([{ type: "event" }])).not.toThrow();
      expect(() => log.write([{ type: "event" }])).not.toThrow();
      expect(spy.mock.calls.filter((c) => String(c[0]).includes("cannot write"))).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });
});
