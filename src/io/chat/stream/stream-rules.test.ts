/**
 * The stream rules of docs/client-tools.md that hold however a provider repeats, duplicates or cuts off what
 * it sends. Each rule runs the engine against a real HTTP server on loopback, with fixtures written from the
 * providers' documented streams, under every chunking of chunkings.ts (1-byte reads, cuts inside every CRLF
 * and every multi-byte UTF-8 character, random cuts).
 */
import { describe, expect, it } from "vitest";
import {
  chunk,
  type ScriptedBackend,
  sse,
  startScriptedBackend,
} from "../../../../tools/scripted-backend/server.ts";
import type { ClientTool } from "../tools/client-tools.ts";
import { crlf, underEveryChunking } from "./chunkings.ts";
import { createChatEngine } from "./engine.ts";
import { expressTool } from "./test-tools.ts";
import type { EngineEvent, Transport } from "./types.ts";

type Obj = Record<string, unknown>;

/** A lookup tool that records every run, to tell "not run" from "answered with an error". */
function countingLookup() {
  const runs: Obj[] = [];
  const tool: ClientTool = {
    name: "lookup",
    description: "looks up",
    parameters: { type: "object", properties: {}, additionalProperties: true },
    run: async (args) => {
      runs.push(args);
      return "42";
    },
  };
  return { runs, tool };
}

/** Responses events as the OpenAI and Hermes servers frame them: `event: <type>` and one `data:` line, CRLF. */
function responsesEvents(...payloads: Obj[]): string {
  return crlf(payloads.map((p) => `event: ${String(p.type)}\ndata: ${JSON.stringify(p)}\n\n`).join(""));
}

/** One turn on a fresh loopback backend answering `bodies` in order, read through `fetchFn`. */
async function turn(
  fetchFn: typeof fetch,
  transport: Transport,
  bodies: string[],
  tools: ClientTool[],
  extra: { brokerBaseUrl?: boolean } = {},
) {
  const backend: ScriptedBackend = await startScriptedBackend(bodies.map((body) => ({ body })));
  try {
    const e = createChatEngine({
      transport,
      baseUrl: extra.brokerBaseUrl ? "http://127.0.0.1:9/v1" : backend.url,
      ...(extra.brokerBaseUrl ? { brokerBaseUrl: backend.url } : {}),
      model: "m",
      fetch: fetchFn,
    });
    const events: EngineEvent[] = [];
    const end = await e.runTurn({ text: "q", tools, presetId: "p", onEvent: (ev) => events.push(ev) });
    return { end, events, requests: backend.requests.map((r) => r.body as Obj) };
  } finally {
    await backend.close();
  }
}

const of = <T extends EngineEvent["type"]>(events: EngineEvent[], type: T) =>
  events.filter((e): e is Extract<EngineEvent, { type: T }> => e.type === type);

const parseFailure = (raw: string): string => {
  try {
    JSON.parse(raw);
  } catch (e) {
    return `error: arguments JSON parse failed: ${(e as Error).message}`;
  }
  throw new Error(`${raw} parses`);
};

describe("one action per call (Responses)", () => {
  // The Hermes agent's api-server: a function_call item is added with its whole arguments, done again, and
  // listed again, without its item id, in response.completed's output beside the function_call_output items
  // of the tools it ran itself. The arguments.done event is the OpenAI server's third copy.
  const expressArgs = '{"emotion_id":"happy"}';
  const lookupArgs = '{"q":"天気"}';
  const terminalArgs = '{"command":"ls"}';
  const fc = (id: string, call_id: string, name: string, args: string, status: string) => ({
    id,
    type: "function_call",
    status,
    name,
    call_id,
    arguments: args,
  });
  const hermesFirst = responsesEvents(
    { type: "response.created", response: { id: "resp_h1", status: "in_progress", output: [] } },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: fc("fc_e", "call_e", "generate_express", expressArgs, "in_progress"),
    },
    {
      type: "response.function_call_arguments.done",
      item_id: "fc_e",
      output_index: 0,
      arguments: expressArgs,
    },
    {
      type: "response.output_item.done",
      output_index: 0,
      item: fc("fc_e", "call_e", "generate_express", expressArgs, "completed"),
    },
    {
      type: "response.output_item.added",
      output_index: 1,
      item: fc("fc_l", "call_l", "lookup", lookupArgs, "in_progress"),
    },
    {
      type: "response.function_call_arguments.done",
      item_id: "fc_l",
      output_index: 1,
      arguments: lookupArgs,
    },
    {
      type: "response.output_item.done",
      output_index: 1,
      item: fc("fc_l", "call_l", "lookup", lookupArgs, "completed"),
    },
    {
      type: "response.output_item.added",
      output_index: 2,
      item: fc("fc_t", "call_t", "terminal", terminalArgs, "in_progress"),
    },
    {
      type: "response.output_item.done",
      output_index: 2,
      item: fc("fc_t", "call_t", "terminal", terminalArgs, "completed"),
    },
    {
      type: "response.output_item.added",
      output_index: 3,
      item: {
        id: "fco_t",
        type: "function_call_output",
        call_id: "call_t",
        output: [{ type: "input_text", text: "a.txt" }],
        status: "completed",
      },
    },
    {
      type: "response.output_item.done",
      output_index: 3,
      item: {
        id: "fco_t",
        type: "function_call_output",
        call_id: "call_t",
        output: [{ type: "input_text", text: "a.txt" }],
        status: "completed",
      },
    },
    {
      type: "response.completed",
      response: {
        id: "resp_h1",
        status: "completed",
        output: [
          { type: "function_call", name: "generate_express", arguments: expressArgs, call_id: "call_e" },
          { type: "function_call", name: "lookup", arguments: lookupArgs, call_id: "call_l" },
          { type: "function_call", name: "terminal", arguments: terminalArgs, call_id: "call_t" },
          {
            type: "function_call_output",
            call_id: "call_t",
            output: [{ type: "input_text", text: "a.txt" }],
          },
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "" }] },
        ],
      },
    },
  );
  const hermesSecond = responsesEvents(
    { type: "response.created", response: { id: "resp_h2", status: "in_progress", output: [] } },
    { type: "response.output_text.delta", output_index: 0, content_index: 0, delta: "晴れです🌞" },
    {
      type: "response.completed",
      response: {
        id: "resp_h2",
        status: "completed",
        output: [
          { type: "message", role: "assistant", content: [{ type: "output_text", text: "晴れです🌞" }] },
        ],
      },
    },
  );

  it("a call repeated on added, arguments.done, item.done and completed plays, runs and reports once", async () => {
    await underEveryChunking(async (fetchFn, name) => {
      const lookup = countingLookup();
      const { end, events, requests } = await turn(
        fetchFn,
        "responses",
        [hermesFirst, hermesSecond],
        [expressTool(), lookup.tool],
      );
      expect(
        of(events, "cue").map((c) => c.call_id),
        name,
      ).toEqual(["call_e"]);
      expect(lookup.runs, name).toEqual([{ q: "天気" }]);
      expect(
        of(events, "tool_call").map((c) => `${c.call_id}=${String(c.result)}`),
        name,
      ).toEqual(["call_e=ok", "call_l=42"]);
      // The backend-run tool: one running, one done.
      expect(of(events, "tool_status"), name).toEqual([
        { type: "tool_status", call_id: "call_t", name: "terminal", status: "running" },
        { type: "tool_status", call_id: "call_t", name: "terminal", status: "done" },
      ]);
      // The round trip carries each executed call once, with one output each.
      expect(requests, name).toHaveLength(2);
      expect((requests[1]!.input as Obj[]).slice(-4), name).toEqual([
        { type: "function_call", call_id: "call_e", name: "generate_express", arguments: expressArgs },
        { type: "function_call", call_id: "call_l", name: "lookup", arguments: lookupArgs },
        { type: "function_call_output", call_id: "call_e", output: "ok" },
        { type: "function_call_output", call_id: "call_l", output: "42" },
      ]);
      expect(end, name).toMatchObject({ outcome: "spoken", text: "晴れです🌞", round_trips: 1 });
    });
  });
});

describe("duplicate call ids", () => {
  it("Chat Completions: the same id at two indexes runs once; the round trip carries it once, with one tool message", async () => {
    const call = (index: number, id: string, name: string, args: string) =>
      chunk({ tool_calls: [{ index, id, type: "function", function: { name, arguments: args } }] });
    const first = crlf(
      sse(
        chunk({ role: "assistant", content: "" }),
        call(0, "call_a", "generate_express", '{"emotion_id":"happy"}'),
        call(1, "call_b", "lookup", '{"q":"一"}'),
        call(2, "call_a", "generate_express", '{"emotion_id":"sad"}'),
        call(3, "call_b", "lookup", '{"q":"二"}'),
        call(4, "call_w", "web_search", "{}"),
        call(5, "call_w", "web_search", "{}"),
        chunk({}, "tool_calls"),
        "[DONE]",
      ),
    );
    const second = crlf(sse(chunk({ content: "答えは42です。" }), chunk({}, "stop"), "[DONE]"));
    await underEveryChunking(async (fetchFn, name) => {
      const lookup = countingLookup();
      const { events, requests, end } = await turn(
        fetchFn,
        "chat",
        [first, second],
        [expressTool(), lookup.tool],
      );
      expect(
        of(events, "cue").map((c) => c.arguments),
        name,
      ).toEqual([{ emotion_id: "happy" }]);
      expect(lookup.runs, name).toEqual([{ q: "一" }]);
      expect(
        of(events, "tool_call").map((c) => c.call_id),
        name,
      ).toEqual(["call_a", "call_b"]);
      expect(
        of(events, "tool_status").map((s) => `${s.call_id}:${s.status}`),
        name,
      ).toEqual(["call_w:done"]);
      expect(requests, name).toHaveLength(2);
      expect((requests[1]!.messages as Obj[]).slice(-3), name).toEqual([
        {
          role: "assistant",
          content: null,
          tool_calls: [
            {
              id: "call_a",
              type: "function",
              function: { name: "generate_express", arguments: '{"emotion_id":"happy"}' },
            },
            { id: "call_b", type: "function", function: { name: "lookup", arguments: '{"q":"一"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "ok" },
        { role: "tool", tool_call_id: "call_b", content: "42" },
      ]);
      expect(end.text, name).toBe("答えは42です。");
    });
  });

  it("Responses: two items under one call_id run once; the input carries one function_call and one output for it", async () => {
    const item = (id: string, args: string) => ({
      id,
      type: "function_call",
      call_id: "call_1",
      name: "lookup",
      arguments: args,
    });
    const events: Obj[] = [{ type: "response.created", response: { id: "r1", status: "in_progress" } }];
    [item("fc_1", '{"q":"一"}'), item("fc_2", '{"q":"二"}')].forEach((it, i) => {
      events.push(
        { type: "response.output_item.added", output_index: i, item: { ...it, arguments: "" } },
        {
          type: "response.function_call_arguments.delta",
          item_id: it.id,
          output_index: i,
          delta: it.arguments,
        },
        {
          type: "response.function_call_arguments.done",
          item_id: it.id,
          output_index: i,
          arguments: it.arguments,
        },
        { type: "response.output_item.done", output_index: i, item: it },
      );
    });
    events.push({
      type: "response.completed",
      response: {
        id: "r1",
        status: "completed",
        output: [item("fc_1", '{"q":"一"}'), item("fc_2", '{"q":"二"}')],
      },
    });
    const second = responsesEvents(
      { type: "response.output_text.delta", delta: "42です。" },
      { type: "response.completed", response: { id: "r2", status: "completed", output: [] } },
    );
    await underEveryChunking(async (fetchFn, name) => {
      const lookup = countingLookup();
      const r = await turn(fetchFn, "responses", [responsesEvents(...events), second], [lookup.tool]);
      expect(lookup.runs, name).toEqual([{ q: "一" }]);
      expect(of(r.events, "tool_call"), name).toHaveLength(1);
      expect(r.requests, name).toHaveLength(2);
      expect((r.requests[1]!.input as Obj[]).slice(-2), name).toEqual([
        { type: "function_call", call_id: "call_1", name: "lookup", arguments: '{"q":"一"}' },
        { type: "function_call_output", call_id: "call_1", output: "42" },
      ]);
    });
  });
});

describe("held calls on any finish (Chat Completions)", () => {
  it("OpenRouter's mid-stream error (error object + finish_reason error, no [DONE]) executes the held calls, then ends the turn with its message", async () => {
    const half = '{"emotion_id":"ha';
    const body = crlf(
      sse(
        chunk({ role: "assistant", content: "" }),
        chunk({ content: "ちょっと待って" }),
        chunk({
          tool_calls: [
            {
              index: 0,
              id: "call_e",
              type: "function",
              function: { name: "generate_express", arguments: half },
            },
          ],
        }),
        chunk({
          tool_calls: [
            { index: 1, id: "call_l", type: "function", function: { name: "lookup", arguments: "" } },
          ],
        }),
        chunk({ tool_calls: [{ index: 1, function: { arguments: '{"q":"x"}' } }] }),
        {
          id: "gen-1",
          object: "chat.completion.chunk",
          model: "openai/gpt-4o",
          provider: "OpenAI",
          error: { code: "server_error", message: "Provider disconnected unexpectedly" },
          choices: [{ index: 0, delta: { content: "" }, finish_reason: "error" }],
        },
      ),
    );
    await underEveryChunking(async (fetchFn, name) => {
      const lookup = countingLookup();
      const { events, requests, end } = await turn(fetchFn, "chat", [body], [expressTool(), lookup.tool]);
      // The half-sent arguments are unparseable: not run, the parse failure as result, no cue.
      expect(of(events, "cue"), name).toEqual([]);
      expect(of(events, "tool_call"), name).toEqual([
        {
          type: "tool_call",
          call_id: "call_e",
          name: "generate_express",
          arguments: null,
          result: parseFailure(half),
        },
        { type: "tool_call", call_id: "call_l", name: "lookup", arguments: { q: "x" }, result: "42" },
      ]);
      expect(lookup.runs, name).toEqual([{ q: "x" }]);
      expect(requests, name).toHaveLength(1);
      expect(end, name).toMatchObject({
        outcome: "error",
        text: "ちょっと待って",
        round_trips: 0,
        error: "backend error: Provider disconnected unexpectedly (server_error)",
      });
    });
  });

  it("finish_reason error without an error object (the Hermes api-server's crash chunk) releases the held calls and ends the turn as an error", async () => {
    const body = sse(
      chunk({
        tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "lookup", arguments: "{}" } }],
      }),
      chunk({}, "error"),
      "[DONE]",
    );
    await underEveryChunking(async (fetchFn, name) => {
      const lookup = countingLookup();
      const { requests, end } = await turn(fetchFn, "chat", [body], [lookup.tool]);
      expect(lookup.runs, name).toEqual([{}]);
      expect(requests, name).toHaveLength(1);
      expect(end, name).toMatchObject({
        outcome: "error",
        error: "backend error: the response ended with finish_reason error",
      });
    }, 5);
  });
});

describe("a response that fails after its calls were released", () => {
  it("Responses: the call run at its event reports its result before the turn ends with response.failed's message", async () => {
    const slow: ClientTool = {
      name: "lookup",
      description: "looks up slowly",
      parameters: { type: "object", properties: {}, additionalProperties: true },
      run: () => new Promise((r) => setTimeout(() => r("42"), 30)),
    };
    const item = {
      id: "fc_1",
      type: "function_call",
      call_id: "call_1",
      name: "lookup",
      arguments: '{"q":"x"}',
    };
    const body = responsesEvents(
      { type: "response.created", response: { id: "r1", status: "in_progress" } },
      { type: "response.output_item.added", output_index: 0, item },
      {
        type: "response.failed",
        response: {
          id: "r1",
          status: "failed",
          error: { code: "server_error", message: "モデルが落ちました" },
        },
      },
    );
    await underEveryChunking(async (fetchFn, name) => {
      const { events, end } = await turn(fetchFn, "responses", [body], [slow]);
      // Anything reported after the turn's end would arrive here.
      await new Promise((r) => setTimeout(r, 60));
      expect(
        events.filter((e) => e.type === "tool_call" || e.type === "turn_end").map((e) => e.type),
        name,
      ).toEqual(["tool_call", "turn_end"]);
      expect(end, name).toMatchObject({
        outcome: "error",
        error: "backend error: モデルが落ちました (server_error)",
      });
    }, 5);
  });
});

describe("empty arguments", () => {
  const failure = parseFailure("");

  it('Chat Completions: arguments "" are unparseable: not run, the parse failure as result, no cue', async () => {
    // Anthropic models behind OpenAI-compatible gateways send "" for a tool without arguments.
    const call = (index: number, id: string, name: string) =>
      chunk({ tool_calls: [{ index, id, type: "function", function: { name, arguments: "" } }] });
    const body = crlf(
      sse(
        call(0, "toolu_01", "generate_express"),
        call(1, "toolu_02", "lookup"),
        chunk({}, "tool_calls"),
        "[DONE]",
      ),
    );
    const second = crlf(sse(chunk({ content: "はい。" }), chunk({}, "stop"), "[DONE]"));
    await underEveryChunking(async (fetchFn, name) => {
      const lookup = countingLookup();
      const { events, requests } = await turn(fetchFn, "chat", [body, second], [expressTool(), lookup.tool]);
      expect(of(events, "cue"), name).toEqual([]);
      expect(lookup.runs, name).toEqual([]);
      expect(
        of(events, "tool_call").map((c) => [c.call_id, c.arguments, c.result]),
        name,
      ).toEqual([
        ["toolu_01", null, failure],
        ["toolu_02", null, failure],
      ]);
      // The results go back under the same rule as any other result.
      expect((requests[1]!.messages as Obj[]).slice(-2), name).toEqual([
        { role: "tool", tool_call_id: "toolu_01", content: failure },
        { role: "tool", tool_call_id: "toolu_02", content: failure },
      ]);
    });
  });

  it('Responses: arguments "" on every event are unparseable: not run, the parse failure as result, no cue', async () => {
    const item = {
      id: "fc_1",
      type: "function_call",
      call_id: "call_1",
      name: "generate_express",
      arguments: "",
    };
    const body = responsesEvents(
      { type: "response.created", response: { id: "r1" } },
      { type: "response.output_item.added", output_index: 0, item },
      { type: "response.function_call_arguments.done", item_id: "fc_1", output_index: 0, arguments: "" },
      { type: "response.output_item.done", output_index: 0, item },
      { type: "response.completed", response: { id: "r1", output: [item] } },
    );
    const second = responsesEvents({ type: "response.output_text.delta", delta: "うん。" });
    await underEveryChunking(async (fetchFn, name) => {
      const { events, requests } = await turn(fetchFn, "responses", [body, second], [expressTool()]);
      expect(of(events, "cue"), name).toEqual([]);
      expect(
        of(events, "tool_call").map((c) => [c.call_id, c.arguments, c.result]),
        name,
      ).toEqual([["call_1", null, failure]]);
      expect((requests[1]!.input as Obj[]).at(-1), name).toEqual({
        type: "function_call_output",
        call_id: "call_1",
        output: failure,
      });
    });
  });
});

describe("incomplete events at the end of the stream", () => {
  it("Chat Completions: an event cut off before its blank line is not dispatched; the held calls are released as they stand", async () => {
    const body =
      crlf(
        sse(
          chunk({ content: "こんにちは" }),
          chunk({
            tool_calls: [
              {
                index: 0,
                id: "c1",
                type: "function",
                function: { name: "generate_express", arguments: '{"emotion_id":"happy"}' },
              },
            ],
          }),
          chunk({
            tool_calls: [
              { index: 1, id: "c2", type: "function", function: { name: "lookup", arguments: '{"q":' } },
            ],
          }),
        ),
      ) +
      // The rest of c2's arguments and more speech, in an event the stream ends before its blank line.
      `data: ${JSON.stringify(chunk({ content: "、切れた", tool_calls: [{ index: 1, function: { arguments: '"x"}' } }] }))}\r\n`;
    const second = crlf(sse(chunk({ content: "ごめんね。" }), chunk({}, "stop")));
    await underEveryChunking(async (fetchFn, name) => {
      const lookup = countingLookup();
      const { events, requests, end } = await turn(
        fetchFn,
        "chat",
        [body, second],
        [expressTool(), lookup.tool],
      );
      expect(
        of(events, "cue").map((c) => c.call_id),
        name,
      ).toEqual(["c1"]);
      expect(lookup.runs, name).toEqual([]);
      expect(
        of(events, "tool_call").map((c) => [c.call_id, c.result]),
        name,
      ).toEqual([
        ["c1", "ok"],
        ["c2", parseFailure('{"q":')],
      ]);
      expect(requests, name).toHaveLength(2);
      expect((requests[1]!.messages as Obj[]).at(-3), name).toMatchObject({
        role: "assistant",
        content: "こんにちは",
      });
      expect(end, name).toMatchObject({ outcome: "spoken", text: "こんにちは ごめんね。" });
    });
  });

  it("Responses: a call whose arguments.done is cut off is not run, and cut-off speech is not spoken", async () => {
    const added = { id: "fc_1", type: "function_call", call_id: "call_1", name: "lookup", arguments: "" };
    const complete = responsesEvents(
      { type: "response.created", response: { id: "r1", status: "in_progress" } },
      { type: "response.output_text.delta", output_index: 0, content_index: 0, delta: "今日は" },
      { type: "response.output_item.added", output_index: 1, item: added },
      {
        type: "response.function_call_arguments.delta",
        item_id: "fc_1",
        output_index: 1,
        delta: '{"q":"x"}',
      },
    );
    const cutCall = `${complete}event: response.function_call_arguments.done\r\ndata: ${JSON.stringify({
      type: "response.function_call_arguments.done",
      item_id: "fc_1",
      output_index: 1,
      arguments: '{"q":"x"}',
    })}\r\n`;
    const cutText = `${responsesEvents(
      { type: "response.created", response: { id: "r2", status: "in_progress" } },
      { type: "response.output_text.delta", output_index: 0, content_index: 0, delta: "晴れ" },
    )}event: response.output_text.delta\r\ndata: {"type":"response.output_text.delta","delta":"のち雨☔"}`;
    await underEveryChunking(async (fetchFn, name) => {
      const lookup = countingLookup();
      const a = await turn(fetchFn, "responses", [cutCall], [lookup.tool]);
      expect(lookup.runs, name).toEqual([]);
      expect(of(a.events, "tool_call"), name).toEqual([]);
      expect(a.requests, name).toHaveLength(1);
      expect(a.end, name).toMatchObject({
        outcome: "spoken",
        text: "今日は",
        response_id: "r1",
        unanswered: [],
      });
      const b = await turn(fetchFn, "responses", [cutText], []);
      expect(b.end, name).toMatchObject({ outcome: "spoken", text: "晴れ" });
    });
  });
});

describe("a Responses call cut off by the output limit is not a call", () => {
  // The stream of issue 32: a message completes, a function_call item is added with empty arguments, two argument
  // deltas arrive, and the stream ends with response.incomplete, whose output lists the item with status
  // "incomplete" and its partial arguments. No arguments.done, no output_item.done for it.
  const message = (text: string) => ({
    id: "msg_1",
    type: "message",
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  });
  const spoken = "調べてみるね。";
  const messageEvents = [
    { type: "response.created", response: { id: "r_cut", status: "in_progress", output: [] } },
    {
      type: "response.output_item.added",
      output_index: 0,
      item: { ...message(""), status: "in_progress", content: [] },
    },
    {
      type: "response.output_text.delta",
      item_id: "msg_1",
      output_index: 0,
      content_index: 0,
      delta: spoken,
    },
    { type: "response.output_text.done", item_id: "msg_1", output_index: 0, content_index: 0, text: spoken },
    { type: "response.output_item.done", output_index: 0, item: message(spoken) },
  ];
  /** A call added with empty arguments at `index` whose arguments stop after `deltas`. */
  const cutCall = (index: number, id: string, callId: string, deltas: string[]) => ({
    item: {
      id,
      type: "function_call",
      status: "incomplete",
      name: "lookup",
      call_id: callId,
      arguments: deltas.join(""),
    },
    events: [
      {
        type: "response.output_item.added",
        output_index: index,
        item: {
          id,
          type: "function_call",
          status: "in_progress",
          name: "lookup",
          call_id: callId,
          arguments: "",
        },
      },
      ...deltas.map((delta) => ({
        type: "response.function_call_arguments.delta",
        item_id: id,
        output_index: index,
        delta,
      })),
    ],
  });
  const incomplete = (reason: string, output: Obj[]) => ({
    type: "response.incomplete",
    response: { id: "r_cut", status: "incomplete", incomplete_details: { reason }, output },
  });

  it("max_output_tokens inside a call: nothing runs, nothing is answered, no round trip; the turn ends spoken and cut off", async () => {
    const cut = cutCall(1, "fc_1", "call_1", ['{"q":"天', "気"]);
    const body = responsesEvents(
      ...messageEvents,
      ...cut.events,
      incomplete("max_output_tokens", [message(spoken), cut.item]),
    );
    await underEveryChunking(async (fetchFn, name) => {
      const lookup = countingLookup();
      const { events, requests, end } = await turn(fetchFn, "responses", [body], [lookup.tool]);
      expect(lookup.runs, name).toEqual([]);
      expect(of(events, "tool_call"), name).toEqual([]);
      expect(of(events, "cue"), name).toEqual([]);
      expect(requests, name).toHaveLength(1);
      expect(end, name).toEqual({
        type: "turn_end",
        outcome: "spoken",
        text: spoken,
        round_trips: 0,
        response_id: "r_cut",
        error: null,
        unanswered: [],
        incomplete: { reason: "max_output_tokens" },
      });
    });
  });

  it("cut inside the second of two calls: the first, complete on its output_item.done, runs and is answered; only the cut one is dropped", async () => {
    const first = {
      id: "fc_1",
      type: "function_call",
      status: "completed",
      name: "lookup",
      call_id: "call_1",
      arguments: '{"q":"東京"}',
    };
    const cut = cutCall(2, "fc_2", "call_2", ['{"q":"大', "阪"]);
    const body = responsesEvents(
      ...messageEvents,
      {
        type: "response.output_item.added",
        output_index: 1,
        item: { ...first, status: "in_progress", arguments: "" },
      },
      { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 1, delta: '{"q":' },
      { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 1, delta: '"東京"}' },
      { type: "response.output_item.done", output_index: 1, item: first },
      ...cut.events,
      incomplete("max_output_tokens", [message(spoken), first, cut.item]),
    );
    const second = responsesEvents(
      { type: "response.output_text.delta", delta: "東京は晴れ。" },
      { type: "response.completed", response: { id: "r_2", status: "completed", output: [] } },
    );
    await underEveryChunking(async (fetchFn, name) => {
      const lookup = countingLookup();
      const { events, requests, end } = await turn(fetchFn, "responses", [body, second], [lookup.tool]);
      expect(lookup.runs, name).toEqual([{ q: "東京" }]);
      expect(
        of(events, "tool_call").map((c) => `${c.call_id}=${String(c.result)}`),
        name,
      ).toEqual(["call_1=42"]);
      expect(requests, name).toHaveLength(2);
      expect((requests[1]!.input as Obj[]).slice(-3), name).toEqual([
        { role: "assistant", content: spoken },
        { type: "function_call", call_id: "call_1", name: "lookup", arguments: '{"q":"東京"}' },
        { type: "function_call_output", call_id: "call_1", output: "42" },
      ]);
      expect(JSON.stringify(requests[1]), name).not.toContain("call_2");
      // The turn's last response was whole: the reply is not cut off.
      expect(end, name).toMatchObject({ outcome: "spoken", text: `${spoken}東京は晴れ。`, round_trips: 1 });
      expect(end, name).not.toHaveProperty("incomplete");
    });
  });

  it("content_filter: the partial call listed in response.incomplete is not run, and the turn end says why", async () => {
    const cut = cutCall(1, "fc_1", "call_1", ['{"q":"']);
    const body = responsesEvents(
      ...messageEvents,
      ...cut.events,
      incomplete("content_filter", [message(spoken), cut.item]),
    );
    await underEveryChunking(async (fetchFn, name) => {
      const lookup = countingLookup();
      const { events, requests, end } = await turn(fetchFn, "responses", [body], [lookup.tool]);
      expect(lookup.runs, name).toEqual([]);
      expect(of(events, "tool_call"), name).toEqual([]);
      expect(requests, name).toHaveLength(1);
      expect(end, name).toMatchObject({
        outcome: "spoken",
        text: spoken,
        round_trips: 0,
        unanswered: [],
        incomplete: { reason: "content_filter" },
      });
    });
  });
});

describe("broker_base_url (deprecated)", () => {
  it("the client declares no tools, and the context it sends is built for no tools", async () => {
    const body = responsesEvents(
      { type: "response.created", response: { id: "r1" } },
      { type: "response.output_text.delta", delta: "やあ" },
    );
    await underEveryChunking(async (fetchFn, name) => {
      const backend = await startScriptedBackend([{ body }]);
      try {
        const e = createChatEngine({
          transport: "responses",
          baseUrl: "http://127.0.0.1:9/v1",
          brokerBaseUrl: backend.url,
          fetch: fetchFn,
        });
        const seen: (readonly ClientTool[])[] = [];
        await e.runTurn({
          text: "q",
          tools: [expressTool(), countingLookup().tool],
          presetId: "p",
          context: "[client context]\nnot this one",
          contextFor: (declared) => {
            seen.push(declared);
            return `[client context]\ndeclared: ${declared.length}`;
          },
        });
        expect(seen, name).toEqual([[]]);
        const sent = backend.requests[0]!.body as Obj;
        expect(sent, name).not.toHaveProperty("tools");
        expect(sent.input, name).toEqual([
          { role: "system", content: "[client context]\ndeclared: 0" },
          { role: "user", content: "q" },
        ]);
      } finally {
        await backend.close();
      }
    }, 3);
  });
});
