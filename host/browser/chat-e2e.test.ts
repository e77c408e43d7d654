import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UNTRUSTED_LINE } from "../../src/io/browser/results.ts";
import { IMAGE_FOLLOWS_NOTE } from "../../src/io/chat/stream/engine.ts";
import { installStandin, type Standin } from "../../tools/ego-browser-standin/install.ts";
import { chatStream, responsesStream, startScriptedBackend } from "../../tools/scripted-backend/server.ts";
import { runYui } from "../../tools/testing/yui-process.ts";
import { openStore } from "../store/store.ts";

// End to end: `yui chat` as a real child process, the scripted backend on loopback asking for browser, the host's
// commands running the stand-in ego-browser, and the result (images included) sent back in the round trip.

let standin: Standin;
let dataDir: string;
beforeEach(async () => {
  standin = await installStandin();
  dataDir = await mkdtemp(join(tmpdir(), "yui-browser-e2e-"));
});
afterEach(async () => {
  await Promise.all([standin.remove(), rm(dataDir, { recursive: true, force: true })]);
});

// HOME, PATH and TMPDIR come from the stand-in's sandbox: ego-browser is found there, and screenshot folders
// (and the start-up cleanup) stay inside it.
const yui = (args: string[]) => runYui(args, dataDir, standin.env);

// The user's switch, as the settings window would set it.
function switchBrowser(enabled: boolean): void {
  const store = openStore(dataDir);
  try {
    store.set("yui.browser", { enabled });
  } finally {
    store.close();
  }
}

// Each test starts `yui chat` as a process: slow on a loaded machine, so a generous timeout.
const E2E_TIMEOUT = 120_000;

const CODE = [
  "const page = await task.newPage({ url: 'https://example.com', width: 1920, height: 1080 });",
  "console.log(await page.title());",
  "await screenshot(page);",
].join("\n");
const TEXT = `${UNTRUSTED_LINE}\nstand-in page at https://example.com`;

describe("browser through yui chat", () => {
  it("runs the backend's script and sends the text and the screenshot back on Chat Completions", {
    timeout: E2E_TIMEOUT,
  }, async () => {
    switchBrowser(true);
    const backend = await startScriptedBackend([
      {
        body: chatStream({
          calls: [{ id: "b1", name: "browser", arguments: JSON.stringify({ code: CODE }) }],
        }),
      },
      { body: chatStream({ text: ["I see the page."] }) },
    ]);
    try {
      const r = await yui([
        "chat",
        "--base-url",
        backend.url,
        "--transport",
        "chat",
        "--message",
        "look it up",
      ]);
      expect(r.code, r.stderr).toBe(0);
      const call = r.lines.find((l) => l.type === "tool_call") as {
        result: { text: string; images: string[] };
      };
      expect(call.result.text).toBe(TEXT);
      expect(call.result.images).toHaveLength(1);
      const messages = (backend.requests[1]!.body as { messages: Record<string, unknown>[] }).messages;
      const tool = messages.find((m) => m.role === "tool");
      expect(tool).toEqual({ role: "tool", tool_call_id: "b1", content: `${TEXT}\n${IMAGE_FOLLOWS_NOTE}` });
      expect(messages.at(-1)).toEqual({
        role: "user",
        content: [{ type: "image_url", image_url: { url: call.result.images[0] } }],
      });
      expect(call.result.images[0]).toMatch(/^data:image\/jpeg;base64,/);
      // The script ran in this preset's task space.
      const space = (await standin.events()).find((e) => e.event === "taskSpace");
      expect(space?.name).toMatch(/^yui-/);
    } finally {
      await backend.close();
    }
  });

  it("sends the text and the screenshot back as input_text and input_image parts on Responses", {
    timeout: E2E_TIMEOUT,
  }, async () => {
    switchBrowser(true);
    const backend = await startScriptedBackend([
      {
        body: responsesStream({
          id: "resp_1",
          calls: [{ call_id: "b1", name: "browser", arguments: JSON.stringify({ code: CODE }) }],
        }),
      },
      { body: responsesStream({ id: "resp_2", text: ["Done."] }) },
    ]);
    try {
      const r = await yui(["chat", "--base-url", backend.url, "--transport", "responses", "--message", "go"]);
      expect(r.code, r.stderr).toBe(0);
      const input = (backend.requests[1]!.body as { input: Record<string, unknown>[] }).input;
      const output = input.find((i) => i.type === "function_call_output") as {
        output: { type: string; text?: string; image_url?: string; detail?: string }[];
      };
      expect(output.output).toEqual([
        { type: "input_text", text: TEXT },
        {
          type: "input_image",
          image_url: expect.stringMatching(/^data:image\/jpeg;base64,/),
          detail: "auto",
        },
      ]);
    } finally {
      await backend.close();
    }
  });
});
