/**
 * The streaming engine of one character's conversation over Chat Completions or Responses: it runs a turn with
 * the transport's loop (chat-loop.ts, responses-loop.ts) over the parts both share (turn-run.ts) and keeps what
 * the next turn needs (the transcript, or the chained response id and its unanswered outputs).
 */
import { brokerOwnsTools } from "../broker/broker-tool-owner.ts";
import type { ClientTool } from "../tools/client-tools.ts";
import { declareTools } from "../tools/declare.ts";
import { runChatTurn, type TranscriptEntry } from "./chat-loop.ts";
import { type ResponsesChain, runResponsesTurn } from "./responses-loop.ts";
import { TurnRun, type TurnTransport, turnError } from "./turn-run.ts";
import type { EngineOptions, TurnEnd, TurnError, TurnInput, TurnOutcome } from "./types.ts";

export { IMAGE_FOLLOWS_NOTE, type TranscriptEntry } from "./chat-loop.ts";

/** The conversation state one engine keeps between turns. */
export interface EngineSession extends ResponsesChain {
  /** Chat Completions: user and assistant speech, rebuilt into each request. */
  transcript: TranscriptEntry[];
}

export interface ChatEngine {
  readonly session: EngineSession;
  /** Runs one turn to its end; never throws (failures end the turn as `error`). */
  runTurn(input: TurnInput): Promise<TurnEnd>;
  /** Forgets the conversation (transcript, chained id and stored outputs). */
  reset(): void;
}

const DEFAULT_IDLE_MS = 120_000;

/** Creates the streaming engine for one character's conversation over Chat Completions or Responses. */
export function createChatEngine(opts: EngineOptions): ChatEngine {
  const session: EngineSession = { transcript: [], previousResponseId: null, pendingOutputs: [] };
  let requestCount = 0;
  let turnCount = 0;
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.apiKey) headers.authorization = `Bearer ${opts.apiKey}`;
  const broker = brokerOwnsTools(opts.transport, opts.brokerBaseUrl);
  const via: TurnTransport = {
    transport: opts.transport,
    fetch: opts.fetch ?? fetch,
    headers,
    idleMs: opts.idleTimeoutMs ?? DEFAULT_IDLE_MS,
    nextRequest: () => ++requestCount,
  };

  /** The turn's end; the next Chat Completions turn is rebuilt from speech, so the exchange is kept unless nothing came of it. */
  const end = (run: TurnRun, outcome: TurnOutcome, failure: TurnError | null): TurnEnd => {
    if (opts.transport === "chat" && (run.text || outcome === "spoken" || outcome === "silent")) {
      session.transcript.push({ role: "user", content: run.input.text });
      if (run.text) session.transcript.push({ role: "assistant", content: run.text });
    }
    return run.end(outcome, failure);
  };

  async function runTurn(input: TurnInput): Promise<TurnEnd> {
    const turnId = input.turnId ?? `turn_${++turnCount}_${Date.now().toString(36)}`;
    const signal = input.signal ?? new AbortController().signal;
    // The broker's backend owns the tools: the client declares none and answers none.
    const tools: ClientTool[] = broker ? [] : input.tools;
    const run = new TurnRun(input, turnId, signal, tools, via);
    try {
      // The client context describes the tools this engine declares: none when the broker owns them.
      const context = input.contextFor ? await input.contextFor(tools) : input.context;
      const request = {
        model: opts.model,
        instructions: opts.instructions,
        declared: declareTools(tools, opts.transport),
        context,
      };
      if (opts.transport === "chat") {
        await runChatTurn(run, { ...request, baseUrl: opts.baseUrl, transcript: session.transcript });
      } else {
        await runResponsesTurn(run, session, {
          ...request,
          baseUrl: broker ? opts.brokerBaseUrl! : opts.baseUrl,
        });
      }
      if (signal.aborted) return end(run, "stopped", null);
      return end(run, run.text.trim() ? "spoken" : "silent", null);
    } catch (e) {
      if (signal.aborted) return end(run, "stopped", null);
      // Calls released before the failure (a Responses call runs at its event, then response.failed) finish
      // and report their result before the turn's end, never after it.
      await run.settleCurrent();
      return end(run, "error", turnError(e));
    }
  }

  return {
    session,
    runTurn,
    reset() {
      session.transcript = [];
      session.previousResponseId = null;
      session.pendingOutputs = [];
    },
  };
}
