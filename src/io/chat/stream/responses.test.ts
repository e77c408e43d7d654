import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  responsesStream,
  type ScriptedBackend,
  sse,
  startScriptedBackend,
} from "../../../../tools/scripted-backend/server.ts";
import { createChatEngine } from "./engine.ts";
import { collectTurn, expressTool, imageTool, PNG_DATA_URL, requestBodies } from "./test-tools.ts";
import type { EngineEvent } from "./types.ts";

let backend: ScriptedBackend;
beforeEach(async () => {
  backend = await startScriptedBackend();
});
afterEach(async () => {
  await backend.close();
});

function engine(extra: { brokerBaseUrl?: string } = {}) {
  return createChatEngine({ transport: "responses", baseUrl: backend.url, model: "m", ...extra });
}

const turn = collectTurn;
const bodies = () => requestBodies(backend);
const reasoning = { type: "reasoning", id: "rs_1", summary: [] };

describe("Responses round trip", () => {
  it("sends the spec's request 2: original input, assistant text, reasoning, function_call, function_call_output", async () => {
    backend.enqueue(
      {
        body: responsesStream({
          id: "resp_1",
          reasoning: [reasoning],
          text: ["Let me check."],
          calls: [{ call_id: "call_1", name: "lookup", arguments: '{"q":"answer"}' }],
        }),
      },
      { body: responsesStream({ id: "resp_2", text: ["It is 42."] }) },
    );
    const e = engine();
    e.session.previousResponseId = "resp_0";
    const { end } = await turn(e, "what is it?");
    const [b1, b2] = bodies();
    expect(b1).toMatchObject({ previous_response_id: "resp_0", stream: true });
    expect(b2!.tools).toEqual(b1!.tools);
    expect(b2!.previous_response_id).toBe("resp_0");
    expect(b2!.input).toEqual([
      ...(b1!.input as unknown[]),
      { role: "assistant", content: "Let me check." },
      { type: "reasoning", id: "rs_1", summary: [] },
      { type: "function_call", call_id: "call_1", name: "lookup", arguments: '{"q":"answer"}' },
      { type: "function_call_output", call_id: "call_1", output: "42" },
    ]);
    expect(end).toMatchObject({
      outcome: "spoken",
      text: "Let me check. It is 42.",
      response_id: "resp_2",
      round_trips: 1,
    });
  });

  it("declares tools flattened with strict: false", async () => {
    backend.enqueue({ body: responsesStream({ id: "r1", text: ["hi"] }) });
    await turn(engine(), "hello");
    expect(bodies()[0]!.tools).toEqual([
      {
        type: "function",
        name: "generate_express",
        description: "cue",
        parameters: expect.any(Object),
        strict: false,
      },
      {
        type: "function",
        name: "lookup",
        description: "looks up",
        parameters: expect.any(Object),
        strict: false,
      },
    ]);
  });

  it("omits the assistant message when the tool-calling response said nothing", async () => {
    backend.enqueue(
      { body: responsesStream({ id: "r1", calls: [{ call_id: "c1", name: "lookup", arguments: "{}" }] }) },
      { body: responsesStream({ id: "r2", text: ["42!"] }) },
    );
    await turn(engine(), "q");
    expect((bodies()[1]!.input as unknown[]).slice(1)).toEqual([
      { type: "function_call", call_id: "c1", name: "lookup", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: "42" },
    ]);
  });

  it("executes a call once, on output_item.added when it carries the complete arguments, and plays the cue there", async () => {
    const item = {
      type: "function_call",
      id: "fc_1",
      call_id: "c1",
      name: "generate_express",
      arguments: '{"emotion_id":"happy"}',
    };
    const body = sse(
      { type: "response.created", response: { id: "r1" } },
      { type: "response.output_text.delta", delta: "Hi " },
      { type: "response.output_item.added", output_index: 1, item },
      { type: "response.output_text.delta", delta: "there" },
      {
        type: "response.function_call_arguments.done",
        item_id: "fc_1",
        output_index: 1,
        arguments: item.arguments,
      },
      { type: "response.output_item.done", output_index: 1, item },
      { type: "response.completed", response: { id: "r1", output: [item] } },
    );
    backend.enqueue({ body });
    const { events } = await turn(engine(), "q");
    const seq = events.filter((e) => e.type === "text" || e.type === "cue").map((e) => e.type);
    expect(seq).toEqual(["text", "cue", "text"]);
    expect(events.find((e) => e.type === "cue")).toMatchObject({ offset: 3 });
    expect(events.filter((e) => e.type === "tool_call")).toHaveLength(1);
  });

  it("executes a call on function_call_arguments.done when the added item had no arguments", async () => {
    const body = sse(
      { type: "response.created", response: { id: "r1" } },
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { type: "function_call", id: "fc_1", call_id: "c1", name: "generate_express", arguments: "" },
      },
      {
        type: "response.function_call_arguments.delta",
        item_id: "fc_1",
        output_index: 0,
        delta: '{"emotion_id":"sad"}',
      },
      {
        type: "response.function_call_arguments.done",
        item_id: "fc_1",
        output_index: 0,
        arguments: '{"emotion_id":"sad"}',
      },
      { type: "response.output_text.delta", delta: "Oh no." },
      { type: "response.completed", response: { id: "r1" } },
    );
    backend.enqueue({ body });
    const { events } = await turn(engine(), "q");
    const seq = events.filter((e) => e.type === "text" || e.type === "cue").map((e) => e.type);
    expect(seq).toEqual(["cue", "text"]);
    expect(events.filter((e) => e.type === "tool_call")).toHaveLength(1);
  });

  it("a call named only when its item completes still runs once, with that name", async () => {
    const body = sse(
      { type: "response.created", response: { id: "r1" } },
      {
        type: "response.output_item.added",
        output_index: 0,
        item: { type: "function_call", id: "fc_1", call_id: "c1", arguments: "" },
      },
      { type: "response.function_call_arguments.done", item_id: "fc_1", output_index: 0, arguments: "{}" },
      {
        type: "response.output_item.done",
        output_index: 0,
        item: { type: "function_call", id: "fc_1", call_id: "c1", name: "lookup", arguments: "{}" },
      },
      { type: "response.completed", response: { id: "r1" } },
    );
    backend.enqueue({ body }, { body: responsesStream({ id: "r2", text: ["42."] }) });
    const { events, end } = await turn(engine(), "q");
    expect(events.filter((e) => e.type === "tool_call")).toEqual([
      { type: "tool_call", call_id: "c1", name: "lookup", arguments: {}, result: "42" },
    ]);
    expect(events.some((e) => e.type === "tool_status")).toBe(false);
    expect(end.text).toBe("42.");
  });

  it("a cue-only response with no text sends the results back", async () => {
    backend.enqueue(
      {
        body: responsesStream({
          id: "r1",
          calls: [{ call_id: "c1", name: "generate_express", arguments: "{}" }],
        }),
      },
      { body: responsesStream({ id: "r2", text: ["Hello!"] }) },
    );
    const { end } = await turn(engine(), "q");
    expect(backend.requests).toHaveLength(2);
    expect(end.unanswered).toEqual([]);
  });

  it("a cue-only call beside speech is left unanswered and sent ahead of the next turn's user message", async () => {
    backend.enqueue(
      {
        body: responsesStream({
          id: "r1",
          text: ["Hi!"],
          calls: [{ call_id: "c1", name: "generate_express", arguments: "{}" }],
        }),
      },
      { body: responsesStream({ id: "r2", text: ["Sure."] }) },
    );
    const e = engine();
    const { end } = await turn(e, "hello");
    expect(backend.requests).toHaveLength(1);
    expect(end.unanswered).toEqual([{ type: "function_call_output", call_id: "c1", output: "ok" }]);
    await turn(e, "next");
    expect(bodies()[1]).toMatchObject({ previous_response_id: "r1" });
    expect(bodies()[1]!.input).toEqual([
      { type: "function_call_output", call_id: "c1", output: "ok" },
      { role: "user", content: "next" },
    ]);
  });

  it("the round-trip cap leaves the last response's calls unanswered", async () => {
    for (let i = 0; i < 4; i++) {
      backend.enqueue({
        body: responsesStream({
          id: `r${i}`,
          calls: [{ call_id: `c${i}`, name: "lookup", arguments: "{}" }],
        }),
      });
    }
    const { end } = await turn(engine(), "q");
    expect(backend.requests).toHaveLength(4);
    expect(end).toMatchObject({ round_trips: 3, response_id: "r3", outcome: "silent" });
    expect(end.unanswered).toEqual([{ type: "function_call_output", call_id: "c3", output: "42" }]);
  });

  it("a 404 for a stored id resets the chain with one retry that sends no id and drops stored outputs", async () => {
    backend.enqueue(
      {
        body: responsesStream({
          id: "r1",
          text: ["Hi!"],
          calls: [{ call_id: "c1", name: "generate_express", arguments: "{}" }],
        }),
      },
      { status: 404, body: JSON.stringify({ error: { message: "Response 'r1' not found" } }) },
      { body: responsesStream({ id: "r2", text: ["Fresh start."] }) },
    );
    const e = engine();
    await turn(e, "hello");
    const { end } = await turn(e, "again");
    expect(bodies()[1]).toMatchObject({ previous_response_id: "r1" });
    expect(bodies()[2]).not.toHaveProperty("previous_response_id");
    expect(bodies()[2]!.input).toEqual([{ role: "user", content: "again" }]);
    expect(end).toMatchObject({ outcome: "spoken", response_id: "r2" });
    expect(e.session.previousResponseId).toBe("r2");
  });

  it("an image result goes back as input_text then input_image parts with detail auto", async () => {
    backend.enqueue(
      { body: responsesStream({ id: "r1", calls: [{ call_id: "c1", name: "look", arguments: "{}" }] }) },
      { body: responsesStream({ id: "r2", text: ["Nice."] }) },
    );
    await turn(engine(), "q", [imageTool()]);
    expect((bodies()[1]!.input as unknown[]).at(-1)).toEqual({
      type: "function_call_output",
      call_id: "c1",
      output: [
        { type: "input_text", text: "screenshot of display 1" },
        { type: "input_image", image_url: PNG_DATA_URL, detail: "auto" },
      ],
    });
  });

  it("a backend-run tool shows running when its item is added and done when it completes", async () => {
    backend.enqueue({
      body: responsesStream({
        id: "r1",
        text: ["Searching."],
        calls: [{ call_id: "c9", name: "web_search", arguments: "{}" }],
      }),
    });
    const { events } = await turn(engine(), "q");
    expect(events.filter((e) => e.type === "tool_status")).toEqual([
      { type: "tool_status", call_id: "c9", name: "web_search", status: "running" },
      { type: "tool_status", call_id: "c9", name: "web_search", status: "done" },
    ]);
    expect(events.some((e) => e.type === "tool_call")).toBe(false);
  });

  it("with broker_base_url set the client declares no tools, and function_call items play as cues, unanswered", async () => {
    backend.enqueue({
      body: responsesStream({
        id: "r1",
        text: ["Hey!"],
        calls: [{ call_id: "c1", name: "mcp_yui_generate_express", arguments: '{"emotion_id":"happy"}' }],
      }),
    });
    const e = createChatEngine({
      transport: "responses",
      baseUrl: "http://127.0.0.1:9/v1",
      brokerBaseUrl: backend.url,
      model: "m",
    });
    const events: EngineEvent[] = [];
    const end = await e.runTurn({
      text: "q",
      tools: [expressTool()],
      presetId: "p",
      onEvent: (ev) => events.push(ev),
    });
    expect(bodies()[0]).not.toHaveProperty("tools");
    expect(events.find((ev) => ev.type === "cue")).toMatchObject({
      name: "mcp_yui_generate_express",
      arguments: { emotion_id: "happy" },
    });
    expect(events.some((ev) => ev.type === "tool_call")).toBe(false);
    expect(end.unanswered).toEqual([]);
  });

  it("tolerates a server that lists output items only in response.completed", async () => {
    const call = { type: "function_call", id: "fc_1", call_id: "c1", name: "lookup", arguments: "{}" };
    backend.enqueue(
      {
        body: sse(
          { type: "response.created", response: { id: "r1" } },
          { type: "response.completed", response: { id: "r1", output: [call] } },
        ),
      },
      {
        body: sse({
          type: "response.completed",
          response: {
            id: "r2",
            output: [
              { type: "message", role: "assistant", content: [{ type: "output_text", text: "It's 42." }] },
            ],
          },
        }),
      },
    );
    const { end } = await turn(engine(), "q");
    expect(end).toMatchObject({ outcome: "spoken", text: "It's 42.", response_id: "r2" });
  });

  it("a server that ignores stream: true and answers one JSON response is read the same way", async () => {
    const response = {
      id: "r9",
      object: "response",
      output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: "Plain." }] }],
    };
    backend.enqueue({ headers: { "content-type": "application/json" }, body: JSON.stringify(response) });
    const { end } = await turn(engine(), "q");
    expect(end).toMatchObject({ outcome: "spoken", text: "Plain.", response_id: "r9" });
  });

  it("a non-streamed response with status incomplete runs only the calls it lists as completed, and says why", async () => {
    const response = {
      id: "r9",
      object: "response",
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      output: [
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Cut." }] },
        {
          type: "function_call",
          status: "completed",
          call_id: "c1",
          name: "generate_express",
          arguments: "{}",
        },
        { type: "function_call", status: "incomplete", call_id: "c2", name: "lookup", arguments: '{"q":' },
      ],
    };
    backend.enqueue({ headers: { "content-type": "application/json" }, body: JSON.stringify(response) });
    const { events, end } = await turn(engine(), "q");
    expect(
      events.filter((e) => e.type === "tool_call").map((e) => (e as { call_id: string }).call_id),
    ).toEqual(["c1"]);
    expect(backend.requests).toHaveLength(1);
    expect(end).toMatchObject({
      outcome: "spoken",
      text: "Cut.",
      response_id: "r9",
      incomplete: { reason: "max_output_tokens" },
      unanswered: [{ type: "function_call_output", call_id: "c1", output: "ok" }],
    });
  });

  it("response.failed ends the turn with its message", async () => {
    backend.enqueue({
      body: sse(
        { type: "response.created", response: { id: "r1" } },
        { type: "response.output_text.delta", delta: "Hm" },
        {
          type: "response.failed",
          response: { id: "r1", error: { code: "server_error", message: "model crashed" } },
        },
      ),
    });
    const { end } = await turn(engine(), "q");
    expect(end).toMatchObject({
      outcome: "error",
      text: "Hm",
      error: "backend error: model crashed (server_error)",
    });
  });
});
