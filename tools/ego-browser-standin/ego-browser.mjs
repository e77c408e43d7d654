#!/usr/bin/env node
/**
 * A stand-in for ego lite's `ego-browser` CLI, for tests: a real program, run as the real one would be.
 *   ego-browser nodejs  reads a script on stdin and really runs it with Node (as an ES module, so top-level await
 *                       works), with taskSpace() provided by ./sdk.mjs. The script's stdout and stderr both come out
 *                       on this CLI's stderr; a non-zero exit adds ego lite's "exited with code N" line.
 *                       Killing this CLI does not stop the script, as with ego lite.
 *   ego-browser skill   prints ./guide.md on stdout.
 * Behaviour switches (environment): EGO_STANDIN_SKILL=ok|fail|hang, EGO_STANDIN_TAKEN=<space>[,<space>] (spaces the
 * user took over), EGO_STANDIN_LOG=<file> (JSON lines: what was received, when spaces opened, when runs ended).
 */
import { spawn } from "node:child_process";
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { join } from "node:path";

/** The guide `skill` prints. */
export const STANDIN_GUIDE =
  "# ego lite browser SDK (stand-in)\n\nawait taskSpace(name) opens a task space.\n";

function log(event) {
  const file = process.env.EGO_STANDIN_LOG;
  if (file) appendFileSync(file, `${JSON.stringify({ ...event, pid: process.pid, t: Date.now() })}\n`);
}

function readStdin() {
  return new Promise((resolve, reject) => {
    const chunks = [];
    process.stdin.on("data", (c) => chunks.push(c));
    process.stdin.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    process.stdin.on("error", reject);
  });
}

async function runNodejs() {
  const script = await readStdin();
  log({ event: "received", argv: process.argv.slice(2), script });
  const dir = mkdtempSync(join(tmpdir(), "ego-standin-"));
  const file = join(dir, "script.mjs");
  writeFileSync(file, script);
  const sdk = new URL("./sdk.mjs", import.meta.url).href;
  const child = spawn(process.execPath, ["--import", sdk, file], { stdio: ["ignore", "pipe", "pipe"] });
  log({ event: "script-started", scriptPid: child.pid });
  // ego lite hands the script's console (log and error alike) back on the CLI's stderr; stdout stays empty.
  child.stdout.pipe(process.stderr, { end: false });
  child.stderr.pipe(process.stderr, { end: false });
  child.on("close", (code, signal) => {
    rmSync(dir, { recursive: true, force: true });
    const n = code ?? 128 + (constants.signals[signal] ?? 0);
    log({ event: "exit", code: n });
    if (n !== 0) process.stderr.write(`ego-browser: exited with code ${n}\n`);
    process.exitCode = n;
  });
}

function runSkill() {
  const mode = process.env.EGO_STANDIN_SKILL ?? "ok";
  log({ event: "skill", mode });
  if (mode === "fail") {
    process.stderr.write("ego-browser: no guide is installed for this version\n");
    process.exitCode = 3;
  } else if (mode === "hang") {
    // Long past any backstop, yet bounded: a test that dies before its backstop fires leaves no process for good.
    setTimeout(() => undefined, 120_000);
  } else {
    process.stdout.write(readFileSync(new URL("./guide.md", import.meta.url)));
  }
}

const command = process.argv[2];
if (command === "nodejs") await runNodejs();
else if (command === "skill") runSkill();
else {
  process.stderr.write("usage: ego-browser <nodejs|skill>\n");
  process.exitCode = 2;
}
