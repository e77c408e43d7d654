import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parsePort } from "./cli.ts";

const GOOD: [string[], number][] = [
  [[], 9000],
  [["--port", "9100"], 9100],
  [["--port=9101"], 9101],
  [["node", "server.ts", "--port", "0"], 0],
  [["--port", "65535"], 65535],
];
const BAD: [string[], string][] = [
  [["--port"], "--port needs a value (0-65535)"],
  [["--port", "--verbose"], "--port needs a value (0-65535)"],
  [["--port", "abc"], "--port must be an integer from 0 to 65535, got 'abc'"],
  [["--port=65536"], "--port must be an integer from 0 to 65535, got '65536'"],
  [["--port=-1"], "--port must be an integer from 0 to 65535, got '-1'"],
  [["--port=0x10"], "--port must be an integer from 0 to 65535, got '0x10'"],
];

describe("parsePort", () => {
  it.each(GOOD)("reads %j as %i", (argv, port) => expect(parsePort(argv, 9000)).toBe(port));
  it.each(BAD)("refuses %j with a clear message", (argv, message) =>
    expect(() => parsePort(argv, 9000)).toThrow(message),
  );
});

describe("portFromArgs", () => {
  const fixture = fileURLToPath(new URL("../test/fixtures/print-port.ts", import.meta.url));
  const run = (...args: string[]) =>
    spawnSync(process.execPath, ["--import", "tsx", fixture, ...args], { encoding: "utf8", timeout: 30_000 });

  it("prints the port it read", () => {
    const r = run("--port", "9123");
    expect(r.stdout.trim()).toBe("9123");
    expect(r.status).toBe(0);
  });

  it("exits 2 with the message on a bad value instead of throwing", () => {
    const r = run("--port", "x");
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("error: --port must be an integer from 0 to 65535, got 'x'\n");
  });
});

describe("parsePort on a huge value", () => {
  it("quotes at most 200 characters of it", () => {
    const big = "9".repeat(1 << 20);
    expect(() => parsePort(["--port", big], 9000)).toThrow(
      `--port must be an integer from 0 to 65535, got '${"9".repeat(200)}…(${1 << 20} characters)'`,
    );
  });
});
