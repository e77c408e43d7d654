import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { connectClient, LAUNCH_MESSAGES } from "@yui/mod-kit";
import { expectLoopbackOnly } from "@yui/mod-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StandInGame } from "../test/stand-in-game.ts";
import { CONFIG_MESSAGES } from "./messages.ts";

const pkg = fileURLToPath(new URL("..", import.meta.url));

// One node process with tsx's loader (not the tsx wrapper, which relays signals to a second process),
// so SIGTERM reaches the Mod itself.
function start(env: Record<string, string>, args: string[]): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "src/main.ts", ...args], {
    cwd: pkg,
    env: { ...process.env, ...env },
    stdio: "pipe",
  });
}

function output(child: ChildProcess): Promise<{ code: number | null; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  // "close", not "exit": the output is read to its end.
  return new Promise((resolve) => child.on("close", (code) => resolve({ code, stdout, stderr })));
}

describe("the factorio Mod as a process", () => {
  let game: StandInGame;
  let dir: string;
  beforeAll(async () => {
    game = await StandInGame.start();
    dir = mkdtempSync(path.join(os.tmpdir(), "factorio-main-"));
    writeFileSync(
      path.join(dir, "config.ini"),
      `[other]\nlocal-rcon-socket=0.0.0.0:${game.port}\nlocal-rcon-password=${game.password}\n`,
    );
    writeFileSync(path.join(dir, "config.toml"), `config_ini = "config.ini"\nsignals_url = ""\n`);
  });
  afterAll(async () => {
    await game.close();
  });

  it("serves MCP on 127.0.0.1 from the config FACTORIO_CONFIG_TOML names, and stops on SIGTERM", async () => {
    const child = start({ FACTORIO_CONFIG_TOML: path.join(dir, "config.toml") }, ["--port", "0"]);
    const done = output(child);
    const url = await new Promise<string>((resolve, reject) => {
      let seen = "";
      child.stdout!.on("data", (d) => {
        seen += d;
        const m = /\[factorio\] MCP on (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(seen);
        if (m) resolve(m[1]!);
      });
      child.on("exit", () => reject(new Error(`exited before listening: ${seen}`)));
    });
    // The child's own socket, by its bound address: 127.0.0.1, not 0.0.0.0 like the game's RCON here.
    await expectLoopbackOnly(Number(new URL(url).port));
    const { client, close } = await connectClient(url);
    const r = (await client.callTool({ name: "factorio_status", arguments: {} })) as {
      content: { text: string }[];
    };
    expect(JSON.parse(r.content[0]!.text)).toMatchObject({ map_id: game.mapId });
    await close();
    child.kill("SIGTERM");
    const exit = await done;
    expect(exit.code, exit.stderr).toBe(0);
  });

  it("exits 1 with one line on stderr, no stack, when its port is taken", async () => {
    const held = createServer();
    await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
    const port = (held.address() as AddressInfo).port;
    try {
      const child = start({ FACTORIO_CONFIG_TOML: path.join(dir, "config.toml") }, ["--port", String(port)]);
      const result = await output(child);
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`${LAUNCH_MESSAGES.portInUse(port)}\n`);
      expect(result.stderr).toBe(
        `error: port ${port} on 127.0.0.1 is already in use; choose another with --port N\n`,
      );
      expect(result.stderr).not.toMatch(/^\s+at /m);
    } finally {
      held.close();
    }
  });

  it("exits 2 with the reason when config.toml is missing", async () => {
    const missing = path.join(dir, "absent.toml");
    const result = await output(start({ FACTORIO_CONFIG_TOML: missing }, ["--port", "0"]));
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(CONFIG_MESSAGES.configTomlMissing(missing));
  });
});
