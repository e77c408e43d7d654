/**
 * bench:stream — parses and dispatches a large synthetic Chat Completions stream (text deltas and tool-call
 * fragments) through the engine and through the official openai SDK's own stream iteration over the same
 * bytes, in one run; prints both times and the ratio engine/SDK (goal: at most 1.0).
 */
import OpenAI from "openai";
import { createChatEngine } from "../src/io/chat/stream/engine.ts";
import type { ClientTool } from "../src/io/chat/tools/client-tools.ts";

const TEXT_CHUNKS = Number(process.env.BENCH_TEXT_CHUNKS ?? 60_000);
const CALLS = 200;
const READ_SIZE = 16 * 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

function buildStream(): Uint8Array {
  const parts: string[] = [];
  const chunk = (delta: unknown, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: "chatcmpl-b", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  for (let i = 0; i < TEXT_CHUNKS; i++) parts.push(chunk({ content: `word${i % 97} こんにちは ` }));
  for (let c = 0; c < CALLS; c++) {
    parts.push(
      chunk({
        tool_calls: [
          {
            index: c,
            id: `call_${c}`,
            type: "function",
            function: { name: "generate_express", arguments: "" },
          },
        ],
      }),
    );
    for (const piece of ['{"emo', 'tion_id"', ':"hap', 'py","ca', 'ption":"soft"}']) {
      parts.push(chunk({ tool_calls: [{ index: c, function: { arguments: piece } }] }));
    }
  }
  parts.push(chunk({}, "stop"), "data: [DONE]\n\n");
  return new TextEncoder().encode(parts.join(""));
}

function responseOf(bytes: Uint8Array): Response {
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.subarray(at, at + READ_SIZE));
      at += READ_SIZE;
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "text/event-stream" } });
}

const express: ClientTool = {
  name: "generate_express",
  description: "cue",
  parameters: { type: "object", properties: {} },
  oneWay: true,
  run: async () => "ok",
};

async function runEngine(bytes: Uint8Array): Promise<{ chars: number; cues: number }> {
  const engine = createChatEngine({
    transport: "chat",
    baseUrl: "http://bench/v1",
    model: "m",
    fetch: async () => responseOf(bytes),
  });
  let cues = 0;
  const end = await engine.runTurn({
    text: "go",
    tools: [express],
    presetId: "bench",
    onEvent: (e) => {
      if (e.type === "cue") cues++;
    },
  });
  return { chars: end.text.length, cues };
}

async function runSdk(bytes: Uint8Array): Promise<{ chars: number; cues: number }> {
  const client = new OpenAI({
    apiKey: "x",
    baseURL: "http://bench/v1",
    fetch: async () => responseOf(bytes),
  });
  const stream = await client.chat.completions.create({
    model: "m",
    messages: [{ role: "user", content: "go" }],
    stream: true,
  });
  let text = "";
  const args = new Map<number, string>();
  for await (const ch of stream) {
    const d = ch.choices[0]?.delta;
    if (d?.content) text += d.content;
    for (const t of d?.tool_calls ?? [])
      args.set(t.index, (args.get(t.index) ?? "") + (t.function?.arguments ?? ""));
  }
  let cues = 0;
  for (const a of args.values()) if (JSON.parse(a)) cues++;
  return { chars: text.length, cues };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const bytes = buildStream();
const e0 = await runEngine(bytes);
const s0 = await runSdk(bytes);
if (e0.chars !== s0.chars || e0.cues !== CALLS || s0.cues !== CALLS) {
  throw new Error(`engine and SDK disagree: ${JSON.stringify({ e0, s0 })}`);
}
const te: number[] = [];
const ts: number[] = [];
for (let r = 0; r < ROUNDS; r++) {
  let t = performance.now();
  await runEngine(bytes);
  te.push(performance.now() - t);
  t = performance.now();
  await runSdk(bytes);
  ts.push(performance.now() - t);
}
const engineMs = median(te);
const sdkMs = median(ts);
console.log(
  `bench:stream  ${(bytes.length / 1e6).toFixed(1)} MB, ${TEXT_CHUNKS} text deltas, ${CALLS} tool calls, median of ${ROUNDS}`,
);
console.log(
  `  engine ${engineMs.toFixed(1)} ms   openai SDK ${sdkMs.toFixed(1)} ms   ratio engine/SDK ${(engineMs / sdkMs).toFixed(2)}`,
);
