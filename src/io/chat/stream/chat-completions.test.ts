import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  chatStream,
  chunk,
  type ScriptedBackend,
  sse,
  startScriptedBackend,
} from "../../../../tools/scripted-backend/server.ts";
import { createChatEngine, IMAGE_FOLLOWS_NOTE } from "./engine.ts";
import {
  collectTurn,
  imageTool,
  lookupTool,
  PNG_DATA_URL,
  requestBodies,
  throwingTool,
} from "./test-tools.ts";

let backend: ScriptedBackend;
beforeEach(async () => {
  backend = await startScriptedBackend();
});
afterEach(async () => {
  await backend.close();
});

function engine() {
  return createChatEngine({ transport: "chat", baseUrl: backend.url, model: "m" });
}

const turn = collectTurn;
const bodies = () => requestBodies(backend);

describe("Chat Completions round trip", () => {
  it("sends the spec's request 2: the same messages and tools with the assistant and tool messages appended", async () => {
    backend.enqueue(
      {
        body: chatStream({
          text: ["Let me check."],
          calls: [{ id: "call_1", name: "lookup", arguments: '{"q":"answer"}' }],
        }),
      },
      { body: chatStream({ text: ["It is 42."] }) },
    );
    const { end } = await turn(engine(), "what is the answer?");
    expect(end.outcome).toBe("spoken");
    expect(end.text).toBe("Let me check. It is 42.");
    expect(end.round_trips).toBe(1);
    const [b1, b2] = bodies();
    expect(b2!.tools).toEqual(b1!.tools);
    const m1 = b1!.messages as unknown[];
    expect(b2!.messages).toEqual([
      ...m1,
      {
        role: "assistant",
        content: "Let me check.",
        tool_calls: [
          { id: "call_1", type: "function", function: { name: "lookup", arguments: '{"q":"answer"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1", content: "42" },
    ]);
  });

  it("declares tools nested under function in tools[] of every request", async () => {
    backend.enqueue({ body: chatStream({ text: ["hi"] }) });
    await turn(engine(), "hello");
    expect(bodies()[0]!.tools).toEqual([
      {
        type: "function",
        function: { name: "generate_express", description: "cue", parameters: expect.any(Object) },
      },
      {
        type: "function",
        function: { name: "lookup", description: "looks up", parameters: expect.any(Object) },
      },
    ]);
    expect(bodies()[0]!.stream).toBe(true);
  });

  it("a request with an empty registry carries no tools key", async () => {
    backend.enqueue({ body: chatStream({ text: ["hi"] }) });
    await turn(engine(), "hello", []);
    expect(bodies()[0]).not.toHaveProperty("tools");
  });

  it("holds tool-call fragments per index until finish_reason and executes them in index order", async () => {
    const body = sse(
      chunk({
        tool_calls: [
          { index: 1, id: "call_b", type: "function", function: { name: "lookup", arguments: "" } },
        ],
      }),
      chunk({
        tool_calls: [
          {
            index: 0,
            id: "call_a",
            type: "function",
            function: { name: "generate_express", arguments: '{"emo' },
          },
        ],
      }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '{"q":1}' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'tion_id":"happy"}' } }] }),
      chunk({}, "tool_calls"),
      "[DONE]",
    );
    backend.enqueue({ body }, { body: chatStream({ text: ["done"] }) });
    const { events } = await turn(engine(), "go");
    const order = events
      .filter((e) => e.type === "cue" || e.type === "tool_call")
      .map((e) => `${e.type}:${"call_id" in e ? e.call_id : ""}`);
    expect(order).toEqual(["cue:call_a", "tool_call:call_a", "tool_call:call_b"]);
    const cue = events.find((e) => e.type === "cue");
    expect(cue).toMatchObject({ name: "generate_express", arguments: { emotion_id: "happy" } });
  });

  it("executes held calls when the stream ends without a finish_reason", async () => {
    backend.enqueue(
      {
        body: sse(
          chunk({ tool_calls: [{ index: 0, id: "c1", function: { name: "lookup", arguments: "{}" } }] }),
        ),
      },
      { body: chatStream({ text: ["ok then"] }) },
    );
    const { end, events } = await turn(engine(), "go");
    expect(events.some((e) => e.type === "tool_call" && e.result === "42")).toBe(true);
    expect(end.text).toBe("ok then");
  });

  it("a server that sends finish_reason once, on the last chunk, delivers every cue after that response's text", async () => {
    const body = sse(
      chunk({ content: "Hello " }),
      chunk({
        tool_calls: [
          { index: 0, id: "c1", function: { name: "generate_express", arguments: '{"emotion_id":"happy"}' } },
        ],
      }),
      chunk({ content: "there." }),
      chunk({}, "stop"),
      "[DONE]",
    );
    backend.enqueue({ body });
    const { events, end } = await turn(engine(), "hi");
    const kinds = events.filter((e) => e.type === "text" || e.type === "cue").map((e) => e.type);
    expect(kinds).toEqual(["text", "text", "cue"]);
    expect(events.find((e) => e.type === "cue")).toMatchObject({ offset: "Hello there.".length });
    // A response that spoke alongside its cues is a complete turn: no round trip.
    expect(backend.requests).toHaveLength(1);
    expect(end.outcome).toBe("spoken");
  });

  it("a cue-only response with no text that ended on tool_calls sends the results back", async () => {
    backend.enqueue(
      {
        body: chatStream({
          calls: [{ id: "c1", name: "generate_express", arguments: '{"emotion_id":"happy"}' }],
          finish: "tool_calls",
        }),
      },
      { body: chatStream({ text: ["Yay!"] }) },
    );
    const { end } = await turn(engine(), "hi");
    expect(backend.requests).toHaveLength(2);
    expect((bodies()[1]!.messages as unknown[]).slice(-2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          {
            id: "c1",
            type: "function",
            function: { name: "generate_express", arguments: '{"emotion_id":"happy"}' },
          },
        ],
      },
      { role: "tool", tool_call_id: "c1", content: "ok" },
    ]);
    expect(end.text).toBe("Yay!");
  });

  it("a cue-only response that ended on finish_reason stop is a deliberate silence", async () => {
    backend.enqueue({
      body: chatStream({ calls: [{ id: "c1", name: "generate_express", arguments: "{}" }], finish: "stop" }),
    });
    const { end, events } = await turn(engine(), "hi");
    expect(backend.requests).toHaveLength(1);
    expect(end.outcome).toBe("silent");
    expect(events.filter((e) => e.type === "cue")).toHaveLength(1);
  });

  it("stops after three round trips and closes the turn with the text it has", async () => {
    for (let i = 0; i < 5; i++) {
      backend.enqueue({
        body: chatStream({ text: [`step ${i}.`], calls: [{ id: `c${i}`, name: "lookup", arguments: "{}" }] }),
      });
    }
    const { end } = await turn(engine(), "loop");
    expect(backend.requests).toHaveLength(4);
    expect(end.round_trips).toBe(3);
    expect(end.text).toBe("step 0. step 1. step 2. step 3.");
    expect(end.outcome).toBe("spoken");
  });

  it("joins speech of consecutive responses with one space, except after 。！？ or whitespace", async () => {
    backend.enqueue(
      { body: chatStream({ text: ["わかった。"], calls: [{ id: "c1", name: "lookup", arguments: "{}" }] }) },
      { body: chatStream({ text: ["答えは42"], calls: [{ id: "c2", name: "lookup", arguments: "{}" }] }) },
      { body: chatStream({ text: [" です"], calls: [{ id: "c3", name: "lookup", arguments: "{}" }] }) },
      { body: chatStream({ text: ["ね"] }) },
    );
    const { end } = await turn(engine(), "q");
    expect(end.text).toBe("わかった。答えは42 です ね");
  });

  it("a tool that throws answers error: <message>", async () => {
    backend.enqueue(
      { body: chatStream({ calls: [{ id: "c1", name: "explode", arguments: "{}" }] }) },
      { body: chatStream({ text: ["oops"] }) },
    );
    const { events } = await turn(engine(), "q", [throwingTool()]);
    expect(events.find((e) => e.type === "tool_call")).toMatchObject({ result: "error: kaboom" });
    expect((bodies()[1]!.messages as unknown[]).at(-1)).toEqual({
      role: "tool",
      tool_call_id: "c1",
      content: "error: kaboom",
    });
  });

  it("unparseable arguments are not run, answer the parse error and play no cue", async () => {
    backend.enqueue(
      { body: chatStream({ calls: [{ id: "c1", name: "generate_express", arguments: '{"emotion_id":' }] }) },
      { body: chatStream({ text: ["sorry"] }) },
    );
    const { events } = await turn(engine(), "q");
    expect(events.some((e) => e.type === "cue")).toBe(false);
    const call = events.find((e) => e.type === "tool_call");
    expect(call).toMatchObject({ arguments: null });
    expect(String((call as { result: string }).result)).toMatch(/^error: arguments JSON parse failed: /);
    // The result goes back under the same rule: a cue-only response with no text ending on tool_calls.
    expect(backend.requests).toHaveLength(2);
  });

  it('finish_reason "length" releases the held calls: a cut-off argument string answers the parse error', async () => {
    const half = '{"q":"天';
    backend.enqueue(
      {
        body: sse(
          chunk({ content: "調べるね" }),
          chunk({
            tool_calls: [
              { index: 0, id: "c1", type: "function", function: { name: "lookup", arguments: half } },
            ],
          }),
          chunk({}, "length"),
          "[DONE]",
        ),
      },
      { body: chatStream({ text: ["ごめん。"] }) },
    );
    const { events, end } = await turn(engine(), "q");
    let parseError = "";
    try {
      JSON.parse(half);
    } catch (e) {
      parseError = `error: arguments JSON parse failed: ${(e as Error).message}`;
    }
    expect(events.filter((e) => e.type === "tool_call")).toEqual([
      { type: "tool_call", call_id: "c1", name: "lookup", arguments: null, result: parseError },
    ]);
    // The result goes back under the usual rule (a question-answering tool ran): the Responses rule for a cut-off
    // call does not apply here.
    expect(backend.requests).toHaveLength(2);
    expect(end).toMatchObject({ outcome: "spoken", text: "調べるね ごめん。", round_trips: 1 });
    expect(end).not.toHaveProperty("incomplete");
  });

  it('a reply ending on finish_reason "length" or "content_filter" ends spoken and says it was cut off, and why', async () => {
    for (const reason of ["length", "content_filter"]) {
      backend.enqueue({
        body: sse(chunk({ content: "The story goes on and" }), chunk({}, reason), "[DONE]"),
      });
      const { end } = await turn(engine(), "tell me");
      expect(end).toMatchObject({ outcome: "spoken", text: "The story goes on and", incomplete: { reason } });
    }
    // A reply that ends on "stop" is not cut off (control).
    backend.enqueue({ body: sse(chunk({ content: "Done." }), chunk({}, "stop"), "[DONE]") });
    const { end } = await turn(engine(), "tell me");
    expect(end).toMatchObject({ outcome: "spoken", text: "Done." });
    expect(end).not.toHaveProperty("incomplete");
  });

  it("an image result carries its text with the note, and one image-only user message follows the tool messages", async () => {
    backend.enqueue(
      {
        body: chatStream({
          calls: [
            { id: "c1", name: "look", arguments: '{"at":"screen"}' },
            { id: "c2", name: "lookup", arguments: "{}" },
          ],
        }),
      },
      { body: chatStream({ text: ["I see it."] }) },
    );
    await turn(engine(), "look", [imageTool(), lookupTool()]);
    expect((bodies()[1]!.messages as unknown[]).slice(-3)).toEqual([
      { role: "tool", tool_call_id: "c1", content: `screenshot of display 1\n${IMAGE_FOLLOWS_NOTE}` },
      { role: "tool", tool_call_id: "c2", content: "42" },
      { role: "user", content: [{ type: "image_url", image_url: { url: PNG_DATA_URL } }] },
    ]);
  });

  it("a tool outside the registry shows done when released and gets no result", async () => {
    backend.enqueue({
      body: chatStream({ text: ["Searching."], calls: [{ id: "c1", name: "web_search", arguments: "{}" }] }),
    });
    const { events } = await turn(engine(), "q");
    expect(events.filter((e) => e.type === "tool_status")).toEqual([
      { type: "tool_status", call_id: "c1", name: "web_search", status: "done" },
    ]);
    expect(events.some((e) => e.type === "tool_call")).toBe(false);
    expect(backend.requests).toHaveLength(1);
  });

  it("any name ending in generate_express plays its cue; only the exact registered name is answered", async () => {
    backend.enqueue({
      body: chatStream({
        text: ["Hi!"],
        calls: [{ id: "c1", name: "mcp_broker_generate_express", arguments: '{"emotion_id":"happy"}' }],
      }),
    });
    const { events } = await turn(engine(), "q");
    expect(events.find((e) => e.type === "cue")).toMatchObject({ name: "mcp_broker_generate_express" });
    expect(events.some((e) => e.type === "tool_call")).toBe(false);
  });

  it("the next turn is rebuilt from the stored transcript of user and assistant speech", async () => {
    backend.enqueue(
      {
        body: chatStream({ text: ["Let me check."], calls: [{ id: "c1", name: "lookup", arguments: "{}" }] }),
      },
      { body: chatStream({ text: ["It is 42."] }) },
      { body: chatStream({ text: ["Bye."] }) },
    );
    const e = engine();
    await turn(e, "q1");
    await turn(e, "q2");
    expect(bodies()[2]!.messages).toEqual([
      { role: "user", content: "q1" },
      { role: "assistant", content: "Let me check. It is 42." },
      { role: "user", content: "q2" },
    ]);
  });
});

describe("Chat Completions stream tolerance", () => {
  it("the whole call in one chunk together with finish_reason (llama.cpp, Ollama)", async () => {
    const body = sse(
      {
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                { index: 0, id: "c1", type: "function", function: { name: "lookup", arguments: '{"q":1}' } },
              ],
            },
            finish_reason: "tool_calls",
          },
        ],
      },
      "[DONE]",
    );
    backend.enqueue({ body }, { body: chatStream({ text: ["ok"] }) });
    const { events } = await turn(engine(), "q");
    expect(events.find((e) => e.type === "tool_call")).toMatchObject({
      call_id: "c1",
      arguments: { q: 1 },
      result: "42",
    });
  });

  it("ignores comments, keepalives, unknown events and usage-only chunks with empty choices", async () => {
    const body =
      ": OPENROUTER PROCESSING\n\n" +
      sse(chunk({ content: "Hi" })) +
      "event: ping\ndata: {}\n\n" +
      sse({ id: "x", object: "chat.completion.chunk", choices: [], usage: { prompt_tokens: 3 } }) +
      sse(chunk({}, "stop"), "[DONE]");
    backend.enqueue({ body });
    const { end } = await turn(engine(), "q");
    expect(end).toMatchObject({ outcome: "spoken", text: "Hi" });
  });

  it("an error object mid-stream ends the turn with the message and keeps the text", async () => {
    backend.enqueue({
      body: sse(chunk({ content: "Part" }), { error: { message: "upstream overloaded", code: 503 } }),
    });
    const { end } = await turn(engine(), "q");
    expect(end).toMatchObject({
      outcome: "error",
      text: "Part",
      error: "backend error: upstream overloaded (503)",
    });
  });

  it("an event: error mid-stream ends the turn", async () => {
    backend.enqueue({
      body: sse(chunk({ content: "Part" }), { event: "error", data: { message: "rate limited" } }),
    });
    const { end } = await turn(engine(), "q");
    expect(end).toMatchObject({ outcome: "error", error: "backend error: rate limited" });
  });

  it("a server that ignores stream: true and answers one JSON completion is read the same way", async () => {
    const completion = {
      id: "c",
      object: "chat.completion",
      choices: [
        {
          index: 0,
          message: {
            role: "assistant",
            content: "Hi!",
            tool_calls: [
              {
                id: "c1",
                type: "function",
                function: { name: "generate_express", arguments: '{"emotion_id":"happy"}' },
              },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
    };
    backend.enqueue({ headers: { "content-type": "application/json" }, body: JSON.stringify(completion) });
    const { end, events } = await turn(engine(), "q");
    expect(end).toMatchObject({ outcome: "spoken", text: "Hi!" });
    expect(events.find((e) => e.type === "cue")).toMatchObject({ arguments: { emotion_id: "happy" } });
  });

  it("Hermes tool progress events show as backend tool status", async () => {
    const body = sse(
      { event: "hermes.tool.progress", data: { tool_call_id: "h1", name: "terminal", status: "started" } },
      chunk({ content: "Done." }),
      { event: "hermes.tool.progress", data: { tool_call_id: "h1", name: "terminal", status: "completed" } },
      chunk({}, "stop"),
    );
    backend.enqueue({ body });
    const { events } = await turn(engine(), "q");
    expect(
      events.filter((e) => e.type === "tool_status").map((e) => (e as { status: string }).status),
    ).toEqual(["running", "done"]);
  });
});

describe("Chat Completions failures", () => {
  it.each([401, 404, 429, 500, 503])(
    "HTTP %i ends the turn naming the status and the start of the body",
    async (status) => {
      backend.enqueue({ status, body: JSON.stringify({ error: { message: `failure ${status}` } }) });
      const { end } = await turn(engine(), "q");
      expect(end.outcome).toBe("error");
      expect(end.error).toMatch(new RegExp(`^backend answered HTTP ${status}\\b.*failure ${status}`));
    },
  );

  it("a refused connection ends the turn with a clear error", async () => {
    const url = backend.url;
    await backend.close();
    const e = createChatEngine({ transport: "chat", baseUrl: url, model: "m" });
    const end = await e.runTurn({ text: "q", tools: [], presetId: "p" });
    expect(end.outcome).toBe("error");
    expect(end.error).toMatch(
      /^backend unreachable at http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: .*ECONNREFUSED/,
    );
    backend = await startScriptedBackend();
  });

  it("a stream that stalls past the idle timeout ends the turn and keeps the text spoken so far", async () => {
    backend.enqueue({ body: [sse(chunk({ content: "Hello" }))], holdOpenMs: 3000 });
    const e = createChatEngine({ transport: "chat", baseUrl: backend.url, model: "m", idleTimeoutMs: 300 });
    const end = await e.runTurn({ text: "q", tools: [], presetId: "p" });
    expect(end).toMatchObject({
      outcome: "error",
      text: "Hello",
      error: "backend stalled: no data for 0.3 s",
    });
  });

  it("a stopped turn ends as stopped with the text so far", async () => {
    backend.enqueue({
      body: [sse(chunk({ content: "Hel" })), sse(chunk({ content: "lo" }))],
      chunkDelayMs: 2000,
    });
    const ac = new AbortController();
    const e = engine();
    const p = e.runTurn({
      text: "q",
      tools: [],
      presetId: "p",
      signal: ac.signal,
      onEvent: (ev) => {
        if (ev.type === "text") ac.abort();
      },
    });
    const end = await p;
    expect(end).toMatchObject({ outcome: "stopped", text: "Hel", error: null });
  });
});
