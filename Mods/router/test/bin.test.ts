import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { parsePort } from "@yui/mod-kit";
import { rawRequest } from "@yui/mod-kit/testing";
import { describe, expect, it } from "vitest";
import type { ModListing } from "../src/router.ts";
import { UPSTREAMS } from "../src/upstreams.ts";

const BIN = fileURLToPath(new URL("../bin/router.ts", import.meta.url));

describe("the router's bin", () => {
  it("starts on --port, announces every route, serves the catalog on GET /_mods, and exits 0 on SIGTERM", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", BIN, "--port", "0"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    try {
      const [chunk] = (await once(child.stdout, "data")) as [Buffer];
      const line = chunk.toString().trim();
      expect(line).toMatch(
        /^\[router\] on http:\/\/127\.0\.0\.1:\d+: \/desktop\/mcp \/shell\/mcp \/avatar\/mcp \/factorio\/mcp$/,
      );
      const url = /on (http:\/\/127\.0\.0\.1:\d+):/.exec(line)![1]!;
      const { mods } = JSON.parse((await rawRequest(`${url}/_mods`)).body) as { mods: ModListing[] };
      expect(mods.map(({ prefix, mod, port }) => [prefix, { mod, port }])).toEqual(Object.entries(UPSTREAMS));
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      expect((await exited)[0]).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it("refuses a bad --port with a clear message", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", BIN, "--port", "http"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    const [code] = (await once(child, "exit")) as [number];
    expect(code).toBe(2);
    // The kit words the refusal; the bin must pass it through as the kit's portFromArgs does.
    const message = (() => {
      try {
        parsePort(["--port", "http"], 0);
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(stderr).toBe(`error: ${message}\n`);
  });
});
