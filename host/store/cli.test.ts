import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliIo, main } from "./cli.ts";
import { openStore } from "./store.ts";

const YUI = new URL("../bin/yui.ts", import.meta.url).pathname;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "yui-cli-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function yui(...argv: string[]) {
  let stdout = "";
  let stderr = "";
  const io: CliIo = {
    stdout: (s) => {
      stdout += s;
    },
    stderr: (s) => {
      stderr += s;
    },
    env: { YUI_DATA_DIR: dir },
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

describe("yui store", () => {
  it("gets a key's default while it is unset", async () => {
    expect(await yui("get", "yui.relations")).toEqual({ code: 0, stdout: '{"enabled":true}\n', stderr: "" });
  });

  it("sets a value through the app's validation and gets it back", async () => {
    expect((await yui("set", "yui.browser", '{"enabled":true}')).code).toBe(0);
    expect((await yui("get", "yui.browser")).stdout).toBe('{"enabled":true}\n');
    const s = openStore(dir);
    expect(s.get("yui.browser")).toEqual({ enabled: true });
    s.close();
  });

  it("knows every key of the contract's table, the voice keys and the history included", async () => {
    expect((await yui("set", "yui.mika.voice", '{"enabled":false,"engine":"local"}')).code).toBe(0);
    expect((await yui("set", "yui.voice", '{"muted":true}')).code).toBe(0);
    expect((await yui("set", "yui.mika.history", '[{"role":"user","content":"hi","at":1}]')).code).toBe(0);
    expect(await yui("set", "yui.mika.voice", '{"enabled":"no"}')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^yui store: invalid value for yui.mika.voice: enabled: /),
    });
    const all = (await yui("list", "--all")).stdout;
    for (const k of ["yui.<presetId>.voice", "yui.<presetId>.voice_api_key", "yui.voice", "yui.agent_notify"])
      expect(all).toContain(`${k}\t`);
  });

  it("refuses a bad value, an unknown key and non-JSON with a clear message and exit 1", async () => {
    expect(await yui("set", "yui.browser", '{"enabled":"on"}')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^yui store: invalid value for yui.browser: enabled: /),
    });
    expect(await yui("set", "yui.mika.relations", '{"values":{"user":21}}')).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^yui store: invalid value for yui.mika.relations: values.user: /),
    });
    expect(await yui("set", "yui.nope", "1")).toEqual({
      code: 1,
      stdout: "",
      stderr: "yui store: unknown key yui.nope\n",
    });
    expect(await yui("get", "yui.nope")).toMatchObject({
      code: 1,
      stderr: "yui store: unknown key yui.nope\n",
    });
    expect(await yui("set", "yui.browser", "{enabled")).toMatchObject({
      code: 1,
      stderr: expect.stringMatching(/^yui store: the value for yui.browser is not JSON: /),
    });
  });

  it("lists the stored keys, and every registered key with --all", async () => {
    await yui("set", "yui.screen_capture", '{"enabled":true}');
    await yui("set", "yui.browser", '{"enabled":false}');
    expect((await yui("list")).stdout).toBe("yui.browser\nyui.screen_capture\n");
    const all = (await yui("list", "--all")).stdout;
    for (const k of ["yui.browser", "yui.relations", "yui.<presetId>.relations", "yui.presets"]) {
      expect(all).toContain(`${k}\t`);
    }
  });

  it("deletes a key back to its default", async () => {
    await yui("set", "yui.browser", '{"enabled":true}');
    expect((await yui("delete", "yui.browser")).code).toBe(0);
    expect((await yui("get", "yui.browser")).stdout).toBe('{"enabled":false}\n');
    expect(await yui("delete", "yui.browser")).toMatchObject({ code: 1 });
  });

  it("answers usage with exit 2", async () => {
    for (const argv of [[], ["get"], ["set", "k"], ["frob", "x"], ["list", "x"]]) {
      expect(await yui(...argv), argv.join(" ")).toMatchObject({
        code: 2,
        stderr: expect.stringContaining("usage: yui store get KEY"),
      });
    }
  });

  it("runs as the yui command, with YUI_DATA_DIR picking the store", () => {
    const env = { ...process.env, YUI_DATA_DIR: dir };
    const run = (...args: string[]) =>
      spawnSync(process.execPath, ["--import", "tsx", YUI, "store", ...args], { env, encoding: "utf8" });
    expect(run("set", "yui.mika.relations", '{"values":{"user":5}}').status).toBe(0);
    const got = run("get", "yui.mika.relations");
    expect(got.status).toBe(0);
    expect(JSON.parse(got.stdout)).toEqual({ values: { user: 5 }, log: [], spent: {} });
  });
});
