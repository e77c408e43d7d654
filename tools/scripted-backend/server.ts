import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One scripted answer: a status, headers and a body sent in chunks (with an optional pause between them). */
export interface ScriptedResponse {
  status?: number;
  headers?: Record<string, string>;
  /** The body, or its chunks in order. */
  body?: string | string[];
  /** Pause before each chunk after the first, in ms. */
  chunkDelayMs?: number;
  /** After the last chunk, keep the connection open without a byte for this long (stall tests). */
  holdOpenMs?: number;
}

/** A request the backend received. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage["headers"];
  /** The parsed JSON body (undefined when not JSON). */
  body: unknown;
  raw: string;
}

export interface ScriptedBackend {
  /** Base URL ending in /v1. */
  url: string;
  requests: RecordedRequest[];
  /** Queues more answers. */
  enqueue(...responses: ScriptedResponse[]): void;
  close(): Promise<void>;
}

/**
 * Starts a real HTTP server on 127.0.0.1 that answers each POST with the next scripted response and records
 * every request; use in integration tests of the transports and the CLI.
 */
export async function startScriptedBackend(
  responses: ScriptedResponse[] = [],
  onRequest?: (req: RecordedRequest, index: number) => void | Promise<void>,
  /** The port to listen on (default: any free one): a test starts a backend where the app already looks. */
  opts: { port?: number } = {},
): Promise<ScriptedBackend> {
  const queue = [...responses];
  const requests: RecordedRequest[] = [];
  const open = new Set<import("node:net").Socket>();
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      body = undefined;
    }
    const path = req.url ?? "/";
    if (req.method === "GET" && path.endsWith("/models")) {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ object: "list", data: [{ id: "scripted-model", object: "model" }] }));
      return;
    }
    const recorded = { method: req.method ?? "", path, headers: req.headers, body, raw };
    requests.push(recorded);
    await onRequest?.(recorded, requests.length - 1);
    const next = queue.shift();
    if (!next) {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: "scripted backend: no response left" } }));
      return;
    }
    res.writeHead(next.status ?? 200, {
      "content-type": next.status && next.status >= 400 ? "application/json" : "text/event-stream",
      "cache-control": "no-cache",
      ...next.headers,
    });
    res.flushHeaders();
    const parts = typeof next.body === "string" ? [next.body] : (next.body ?? []);
    for (let i = 0; i < parts.length; i++) {
      if (i > 0 && next.chunkDelayMs) await sleep(next.chunkDelayMs);
      if (res.destroyed) return;
      res.write(parts[i]);
    }
    if (next.holdOpenMs) await sleep(next.holdOpenMs);
    res.end();
  });
  server.on("connection", (s) => {
    s.setNoDelay(true);
    open.add(s);
    s.on("close", () => open.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    enqueue: (...r) => queue.push(...r),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Formats SSE: one `data:` event per payload (objects are JSON-encoded), with optional `event:` names. */
export function sse(...events: (unknown | { event: string; data: unknown })[]): string {
  return events
    .map((e) => {
      if (e && typeof e === "object" && "event" in e && "data" in e) {
        const { event, data } = e as { event: string; data: unknown };
        return `event: ${event}\ndata: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
      }
      return `data: ${typeof e === "string" ? e : JSON.stringify(e)}\n\n`;
    })
    .join("");
}

/** A chat.completion.chunk with a delta (and optional finish_reason). */
export function chunk(delta: Record<string, unknown>, finish_reason: string | null = null): unknown {
  return { id: "chatcmpl-1", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }] };
}

/** A Chat Completions stream: speech, then whole tool calls, then the finish chunk and [DONE]. */
export function chatStream(opts: {
  text?: string[];
  calls?: { id: string; name: string; arguments: string }[];
  finish?: string | null;
  done?: boolean;
}): string {
  const events: unknown[] = [chunk({ role: "assistant", content: "" })];
  for (const t of opts.text ?? []) events.push(chunk({ content: t }));
  (opts.calls ?? []).forEach((c, index) => {
    events.push(
      chunk({
        tool_calls: [
          { index, id: c.id, type: "function", function: { name: c.name, arguments: c.arguments } },
        ],
      }),
    );
  });
  const finish = opts.finish === undefined ? (opts.calls?.length ? "tool_calls" : "stop") : opts.finish;
  if (finish !== null) events.push(chunk({}, finish));
  if (opts.done !== false) events.push("[DONE]");
  return sse(...events);
}

/** A Responses stream: created, text deltas, function_call items (added + args done + done), completed. */
export function responsesStream(opts: {
  id: string;
  text?: string[];
  calls?: { call_id: string; name: string; arguments: string }[];
  reasoning?: Record<string, unknown>[];
}): string {
  const events: unknown[] = [{ type: "response.created", response: { id: opts.id, status: "in_progress" } }];
  let index = 0;
  for (const r of opts.reasoning ?? []) {
    events.push({ type: "response.output_item.added", output_index: index, item: r });
    events.push({ type: "response.output_item.done", output_index: index++, item: r });
  }
  if (opts.text?.length) {
    const msgIndex = index++;
    for (const t of opts.text) {
      events.push({ type: "response.output_text.delta", output_index: msgIndex, content_index: 0, delta: t });
    }
  }
  for (const c of opts.calls ?? []) {
    const item = { type: "function_call", id: `fc_${c.call_id}`, call_id: c.call_id, name: c.name };
    events.push({
      type: "response.output_item.added",
      output_index: index,
      item: { ...item, arguments: "" },
    });
    events.push({
      type: "response.function_call_arguments.delta",
      item_id: item.id,
      output_index: index,
      delta: c.arguments,
    });
    events.push({
      type: "response.function_call_arguments.done",
      item_id: item.id,
      output_index: index,
      arguments: c.arguments,
    });
    events.push({
      type: "response.output_item.done",
      output_index: index++,
      item: { ...item, arguments: c.arguments },
    });
  }
  events.push({ type: "response.completed", response: { id: opts.id, status: "completed", output: [] } });
  return events.map((e) => `event: ${(e as { type: string }).type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}
