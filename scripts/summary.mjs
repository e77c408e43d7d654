// Prints the plain closing line 'N passed, N failed' from Vitest's JSON reports.
import { readFileSync } from "node:fs";

// One or more reports (scripts/test.sh runs the shells' tests apart, shuffled): their counts added up.
const reports = process.argv.slice(2).map((f) => JSON.parse(readFileSync(f, "utf8")));
const sum = (count) => reports.reduce((n, r) => n + count(r), 0);
const skipped = sum((r) => r.numPendingTests + (r.numTodoTests ?? 0));
console.log(
  `tests: ${sum((r) => r.numPassedTests)} passed, ${sum((r) => r.numFailedTests)} failed${skipped ? `, ${skipped} skipped` : ""}`,
);
