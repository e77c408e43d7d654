import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@yui/mod-kit/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_PRESET } from "../../src/app/presets/preset.ts";
import { savePreset, setActivePreset } from "../../src/app/presets/presets.ts";
import { installStandin } from "../../tools/ego-browser-standin/install.ts";
import { startPushBackend } from "../../tools/push-backend/server.ts";
import {
  chatStream,
  type RecordedRequest,
  responsesStream,
  type ScriptedResponse,
  startScriptedBackend,
} from "../../tools/scripted-backend/server.ts";
import { runYui } from "../../tools/testing/yui-process.ts";
import { openStore } from "../store/store.ts";

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "yui-cli-"));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

const yui = (args: string[]) => runYui(args, dataDir);

async function withBackend<T>(
  responses: ScriptedResponse[],
  fn: (url: string, requests: RecordedRequest[]) => Promise<T>,
  onRequest?: (r: RecordedRequest, i: number) => void,
): Promise<T> {
  const b = await startScriptedBackend(responses, onRequest);
  try {
    return await fn(b.url, b.requests);
  } finally {
    await b.close();
  }
}

describe("yui chat with two characters", () => {
  it("characters address each other until the chain cap, and a [SILENT] reply ends the exchange", async () => {
    const store = openStore(dataDir);
    savePreset(store, { ...DEFAULT_PRESET, id: "yui", name: "YUI" });
    savePreset(store, { ...DEFAULT_PRESET, id: "aoi", name: "Aoi" });
    setActivePreset(store, "yui");
    store.set("yui.rate_limit.addressed_chain_max", 2);
    store.close();
    const address = (id: string, to: string, text: string): ScriptedResponse[] => [
      {
        body: chatStream({
          text: [text],
          calls: [{ id, name: "address_character", arguments: JSON.stringify({ to }) }],
        }),
      },
      { body: chatStream({ text: [] }) },
    ];
    await withBackend(
      [
        ...address("a1", "Aoi", "Aoi, what do you think?"),
        ...address("a2", "YUI", "I like it, YUI."),
        ...address("a3", "Aoi", "Great, Aoi!"),
        ...address("a4", "Aoi", "Aoi, again?"),
        { body: chatStream({ text: ["[SILENT]"] }) },
      ],
      async (url, requests) => {
        const r = await yui([
          "chat",
          "--base-url",
          url,
          "--transport",
          "chat",
          "--with",
          "aoi",
          "--message",
          "hi",
          "--message",
          "again",
        ]);
        expect(r.stderr).toBe("");
        expect(r.code).toBe(0);
        const ends = r.lines.filter((l) => l.type === "turn_end").map((l) => `${l.preset}: ${l.text}`);
        expect(ends).toEqual([
          "yui: Aoi, what do you think?",
          "aoi: I like it, YUI.",
          "yui: Great, Aoi!",
          "yui: Aoi, again?",
          "aoi: [SILENT]",
        ]);
        const addressed = r.lines.filter((l) => l.type === "character_addressed");
        expect(
          addressed.map((l) => [l.chain, (l.from as { id: string }).id, (l.to as { id: string }).id]),
        ).toEqual([
          [1, "yui", "aoi"],
          [2, "aoi", "yui"],
          [1, "yui", "aoi"],
        ]);
        // The addressed turn carries the addressed-turn context and the speaker's words as its message.
        const aoiFirst = requests[2]!.body as { messages: { role: string; content: string }[] };
        expect(aoiFirst.messages.at(-1)).toEqual({ role: "user", content: "YUI: Aoi, what do you think?" });
        expect(aoiFirst.messages.at(-2)!.content).toContain(
          "addressed by: YUI (turn 1 of at most 2 in this exchange)",
        );
        expect(requests).toHaveLength(9);
      },
    );
  });
});

describe("yui chat", () => {
  it("runs a scripted multi-turn push conversation with cues and tool calls", async () => {
    const backend = await startPushBackend({
      onTurn: async (t) => {
        if (t.frame!.text === "hi") {
          t.segment("Hello!", [{ at: 0, emotion_id: "happy", motion_id: "wave" }]);
          const r = await t.call("rate_relation", { toward: "user", delta: 2, why: "said hi" });
          t.segment(` (${String(r.result)})`);
        } else {
          t.segment("Bye.");
        }
        t.end("spoken");
      },
    });
    try {
      const r = await yui([
        "chat",
        "--transport",
        "push",
        "--push-url",
        backend.url,
        "--message",
        "hi",
        "--message",
        "bye",
      ]);
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.lines.map((l) => l.type)).toEqual([
        "request",
        "cue",
        "text",
        "tool_call",
        "text",
        "turn_end",
        "request",
        "text",
        "turn_end",
      ]);
      expect(r.lines[1]).toEqual({
        type: "cue",
        call_id: expect.any(String),
        name: "generate_express",
        arguments: { emotion_id: "happy", motion_id: "wave" },
      });
      expect(r.lines[3]).toMatchObject({ type: "tool_call", name: "rate_relation", result: "neutral" });
      expect(r.lines[5]).toMatchObject({ type: "turn_end", outcome: "spoken", text: "Hello! (neutral)" });
      expect(backend.hellos).toHaveLength(1);
      expect((backend.hellos[0]!.tools as { name: string }[]).map((t) => t.name)).toEqual([
        "rate_relation",
        "address_character",
        "browser",
        "body_action",
        "look",
      ]);
      // yui tools --transport push prints exactly the hello's tools.
      const printed = await yui(["tools", "--window", "main", "--transport", "push"]);
      expect(JSON.parse(printed.stdout)).toEqual(backend.hellos[0]!.tools);
      const turnFrame = backend.frames.find((f) => f.frame.type === "turn")!.frame;
      expect(turnFrame).toMatchObject({
        origin: "user",
        text: "hi",
        context: expect.stringMatching(/^\[client context\]\ntime: /),
      });
    } finally {
      await backend.close();
    }
  });

  it("runs a multi-turn Chat Completions conversation and prints every event as a JSON line", async () => {
    await withBackend(
      [
        {
          body: chatStream({
            text: ["Hello!"],
            calls: [
              { id: "c1", name: "generate_express", arguments: '{"emotion_id":"happy","motion_id":"wave"}' },
            ],
          }),
        },
        { body: chatStream({ text: ["Fine, thanks."] }) },
      ],
      async (url, requests) => {
        const r = await yui([
          "chat",
          "--base-url",
          url,
          "--transport",
          "chat",
          "--model",
          "m",
          "--message",
          "hi",
          "--message",
          "how are you?",
        ]);
        expect(r.code).toBe(0);
        const types = r.lines.map((l) => l.type);
        expect(types).toEqual([
          "request",
          "text",
          "cue",
          "tool_call",
          "turn_end",
          "request",
          "text",
          "turn_end",
        ]);
        expect(r.lines[0]).toMatchObject({ n: 1, url: `${url}/chat/completions` });
        expect(r.lines[2]).toEqual({
          type: "cue",
          call_id: "c1",
          name: "generate_express",
          arguments: { emotion_id: "happy", motion_id: "wave" },
        });
        expect(r.lines[3]).toEqual({
          type: "tool_call",
          call_id: "c1",
          name: "generate_express",
          arguments: { emotion_id: "happy", motion_id: "wave" },
          result: "ok",
        });
        expect(r.lines[4]).toMatchObject({
          type: "turn_end",
          outcome: "spoken",
          text: "Hello!",
          round_trips: 0,
          response_id: null,
          error: null,
        });
        // The second turn is rebuilt from the transcript: user and assistant speech, then the context and the new message.
        const body2 = requests[1]!.body as { messages: { role: string; content: string }[] };
        expect(body2.messages.slice(0, 2)).toEqual([
          { role: "user", content: "hi" },
          { role: "assistant", content: "Hello!" },
        ]);
        expect(body2.messages.at(-2)).toMatchObject({ role: "system" });
        expect(body2.messages.at(-2)!.content).toMatch(
          /^\[client context\]\ntime: .*\ntool switches: relations=on, browser=off, screen=off\nrelation: user neutral$/,
        );
        expect(body2.messages.at(-1)).toEqual({ role: "user", content: "how are you?" });
        expect(r.lines[5]).toMatchObject({ n: 2 });
      },
    );
  });

  it("chains Responses turns on the last response id", async () => {
    await withBackend(
      [
        { body: responsesStream({ id: "resp_a", text: ["One."] }) },
        { body: responsesStream({ id: "resp_b", text: ["Two."] }) },
      ],
      async (url, requests) => {
        const r = await yui([
          "chat",
          "--base-url",
          url,
          "--transport",
          "responses",
          "--message",
          "1",
          "--message",
          "2",
        ]);
        expect(r.code).toBe(0);
        expect(requests[0]!.body).not.toHaveProperty("previous_response_id");
        expect(requests[1]!.body).toMatchObject({ previous_response_id: "resp_a" });
        expect(r.lines.filter((l) => l.type === "turn_end").map((l) => l.response_id)).toEqual([
          "resp_a",
          "resp_b",
        ]);
      },
    );
  });

  it("a Responses reply cut off inside a call prints a spoken turn_end saying why, runs nothing and exits 0", async () => {
    const events = [
      { type: "response.created", response: { id: "resp_cut", status: "in_progress" } },
      { type: "response.output_text.delta", delta: "Let me see." },
      {
        type: "response.output_item.added",
        output_index: 1,
        item: { id: "fc_1", type: "function_call", call_id: "call_1", name: "look", arguments: "" },
      },
      {
        type: "response.function_call_arguments.delta",
        item_id: "fc_1",
        output_index: 1,
        delta: '{"at":"bo',
      },
      {
        type: "response.incomplete",
        response: {
          id: "resp_cut",
          status: "incomplete",
          incomplete_details: { reason: "max_output_tokens" },
          output: [
            {
              id: "fc_1",
              type: "function_call",
              status: "incomplete",
              call_id: "call_1",
              name: "look",
              arguments: '{"at":"bo',
            },
          ],
        },
      },
    ];
    const body = events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join("");
    await withBackend([{ body }], async (url, requests) => {
      const r = await yui([
        "chat",
        "--base-url",
        url,
        "--transport",
        "responses",
        "--message",
        "where are you?",
      ]);
      expect(r.code).toBe(0);
      expect(requests).toHaveLength(1);
      expect(r.lines.filter((l) => l.type === "tool_call")).toEqual([]);
      expect(r.lines.at(-1)).toEqual({
        type: "turn_end",
        outcome: "spoken",
        text: "Let me see.",
        round_trips: 0,
        response_id: "resp_cut",
        error: null,
        unanswered: [],
        incomplete: { reason: "max_output_tokens" },
      });
    });
  });

  it("an edit to the vocabulary reaches the declared schema on the next turn", async () => {
    const vocab = join(dataDir, "vocab.json");
    const base = {
      version: 1,
      emotions: [{ id: "happy", expression: { happy: 1 } }],
      motions: [{ id: "wave" }],
      motion_selection: null,
      voice: { engine: "none", mode: "free" },
    };
    writeFileSync(vocab, JSON.stringify(base));
    await withBackend(
      [{ body: chatStream({ text: ["a"] }) }, { body: chatStream({ text: ["b"] }) }],
      async (url, requests) => {
        const r = await yui([
          "chat",
          "--base-url",
          url,
          "--transport",
          "chat",
          "--vocabulary",
          vocab,
          "--message",
          "1",
          "--message",
          "2",
        ]);
        expect(r.code).toBe(0);
        const schema = (i: number) =>
          (
            requests[i]!.body as {
              tools: {
                function: { name: string; parameters: { properties: Record<string, { enum?: string[] }> } };
              }[];
            }
          ).tools[0]!.function.parameters.properties;
        expect(schema(0).emotion_id!.enum).toEqual(["happy"]);
        expect(schema(1).emotion_id!.enum).toEqual(["happy", "sleepy"]);
        expect(schema(1)).not.toHaveProperty("motion_id");
      },
      (_r, i) => {
        if (i === 0) {
          writeFileSync(
            vocab,
            JSON.stringify({
              ...base,
              emotions: [...base.emotions, { id: "sleepy", expression: {} }],
              motion_selection: [],
            }),
          );
        }
      },
    );
  });

  it("exits 1 when a turn ends in an error, printing the error", async () => {
    await withBackend([{ status: 503, body: '{"error":{"message":"busy"}}' }], async (url) => {
      const r = await yui(["chat", "--base-url", url, "--transport", "chat", "--message", "x"]);
      expect(r.code).toBe(1);
      expect(r.lines.at(-1)).toMatchObject({ type: "turn_end", outcome: "error" });
      expect(String(r.lines.at(-1)!.error)).toMatch(/^backend answered HTTP 503/);
    });
  });

  it("documents itself with --help and refuses bad options with exit 2", async () => {
    const help = await yui(["chat", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("usage: yui chat");
    const bad = await yui([
      "chat",
      "--window",
      "kitchen",
      "--message",
      "x",
      "--base-url",
      "http://127.0.0.1:9",
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--window must be one of main, pet, bound, browser, phone");
  });

  it("--host: a non-loopback URL is a bad option (2); a host that does not answer ends with 1", async () => {
    const base = ["chat", "--base-url", "http://127.0.0.1:9", "--transport", "chat", "--message", "x"];
    const remote = await yui([...base, "--host", "http://192.0.2.1:8777/"]);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toBe(
      "yui chat: --host must be a loopback http:// URL, such as http://127.0.0.1:8777/ (got http://192.0.2.1:8777/)\n",
    );
    const port = await freePort();
    const gone = await yui([...base, "--host", `http://127.0.0.1:${port}/`]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(
      new RegExp(`^yui chat: cannot reach the YUI host at http://127.0.0.1:${port}/: `),
    );
    expect(gone.lines).toEqual([]);
  });
});

describe("yui chat after Stop", () => {
  // The backend asks for a browser run; the stand-in ego-browser's script is still running when the user
  // stops (SIGINT), so the call answers error: turn stopped and a round trip would be due. None goes out.
  const SLOW = "await new Promise((r) => setTimeout(r, 3000));\nconsole.log('late');";
  it.each([
    [
      "chat",
      chatStream({ calls: [{ id: "b1", name: "browser", arguments: JSON.stringify({ code: SLOW }) }] }),
    ],
    [
      "responses",
      responsesStream({
        id: "resp_1",
        calls: [{ call_id: "b1", name: "browser", arguments: JSON.stringify({ code: SLOW }) }],
      }),
    ],
  ])(
    "%s: reports only the requests that reached the server, and round_trips counts them",
    {
      timeout: 120_000,
    },
    async (transport, first) => {
      const standin = await installStandin();
      try {
        const store = openStore(dataDir);
        store.set("yui.browser", { enabled: true });
        store.close();
        await withBackend(
          [{ body: first }, { body: chatStream({ text: ["too late"] }) }],
          async (url, requests) => {
            const r = await runYui(
              ["chat", "--base-url", url, "--transport", transport, "--message", "look it up"],
              dataDir,
              standin.env,
              (child) => {
                // One SIGINT, as a user's Ctrl-C: a second would find yui chat's once-handler gone.
                let sent = false;
                const poll = setInterval(async () => {
                  if (sent) return;
                  if ((await standin.events()).some((e) => e.event === "script-started") && !sent) {
                    sent = true;
                    clearInterval(poll);
                    child.kill("SIGINT");
                  }
                }, 50);
                child.on("close", () => clearInterval(poll));
              },
            );
            expect(r.code, r.stderr).toBe(1);
            expect(r.lines.find((l) => l.type === "tool_call")).toMatchObject({
              call_id: "b1",
              name: "browser",
              result: "error: turn stopped",
            });
            // What reached the server is what the CLI reports.
            expect(requests).toHaveLength(1);
            expect(r.lines.filter((l) => l.type === "request")).toHaveLength(requests.length);
            expect(r.lines.at(-1)).toMatchObject({ type: "turn_end", outcome: "stopped", round_trips: 0 });
            // Responses keeps the call's output for the chained response, so the next turn pairs it.
            expect(r.lines.at(-1)!.unanswered).toEqual(
              transport === "responses"
                ? [{ type: "function_call_output", call_id: "b1", output: "error: turn stopped" }]
                : [],
            );
            expect(r.lines.at(-1)!.round_trips).toBe(requests.length - 1);
          },
        );
      } finally {
        await standin.remove();
      }
    },
  );
});
