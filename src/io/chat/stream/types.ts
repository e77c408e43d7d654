import type { ClientTool, ToolResult } from "../tools/client-tools.ts";

/** How a turn ended. */
export type TurnOutcome = "spoken" | "silent" | "error" | "stopped";

/** A function_call_output item kept for a call the turn left unanswered (Responses). */
export interface UnansweredOutput {
  type: "function_call_output";
  call_id: string;
  output: string | ResponsesOutputPart[];
}

export type ResponsesOutputPart =
  | { type: "input_text"; text: string }
  | { type: "input_image"; image_url: string; detail: "auto" };

/**
 * Why a turn failed, typed so that a window words it without reading the message:
 * - `unreachable`: the request never reached a server (`url` is where it went);
 * - `http`: the server answered a status that is not 2xx (`status`, `url`; `detail` is the server's own message,
 *   from its JSON error or the start of its body);
 * - `stalled`: the stream went quiet past the idle timeout;
 * - `backend`: the backend reported an error itself (inside the stream, or a push turn that failed);
 * - `push`: the push connection went quiet or could not be reached (`url`);
 * - `other`: anything else (`detail` is the error's own message).
 */
export type TurnErrorKind = "unreachable" | "http" | "stalled" | "backend" | "push" | "other";

export interface TurnError {
  kind: TurnErrorKind;
  /** The HTTP status (`http`). */
  status?: number;
  /** The URL the failing request or connection went to. */
  url?: string;
  /** The engine's whole message, as TurnEnd.error carries it. */
  message: string;
  /** What the server or the error said itself, without the engine's framing. */
  detail?: string;
}

export interface TurnEnd {
  type: "turn_end";
  outcome: TurnOutcome;
  /** Everything the turn said, responses joined. */
  text: string;
  round_trips: number;
  /** Responses: the id of the turn's last response; null on Chat Completions. */
  response_id: string | null;
  error: string | null;
  /** The same failure, typed (present when outcome is "error"). */
  failure?: TurnError;
  /** Responses: one output per call left unanswered, sent ahead of the next turn's user message. */
  unanswered: UnansweredOutput[];
  /**
   * The turn's last response was cut off, and why: Responses' `response.incomplete` with its
   * `incomplete_details.reason` (such as `max_output_tokens` or `content_filter`), Chat Completions'
   * `finish_reason` `length` or `content_filter`; absent when it was not.
   */
  incomplete?: { reason: string };
}

/** Everything the engine reports, in the order it happens. */
export type EngineEvent =
  | { type: "request"; n: number; url: string; body: Record<string, unknown> }
  | {
      type: "text";
      delta: string;
      /** Push render segments: shown, not spoken. */
      render?: true;
    }
  | {
      type: "cue";
      call_id: string;
      name: string;
      arguments: Record<string, unknown>;
      /** Offset in the turn's text at which the cue plays. */
      offset: number;
    }
  | {
      type: "tool_call";
      call_id: string;
      name: string;
      arguments: Record<string, unknown> | null;
      result: ToolResult;
    }
  | { type: "tool_status"; call_id: string; name: string; status: "running" | "done" }
  | TurnEnd;

/** What one turn needs. */
export interface TurnInput {
  /** The user's message (or the addressed turn's / signal's text). */
  text: string;
  /** The client context block of this turn, sent as a system message right before the user message. */
  context?: string;
  /**
   * Builds the client context for the tools the caller declares. The engine calls it with the tools it
   * declares on this turn (none when the broker owns them) and sends that block instead of `context`, so the
   * context never describes a tool the request does not offer. The push client declares every tool and
   * sends `context`.
   */
  contextFor?: (declared: readonly ClientTool[]) => string | Promise<string>;
  /** The registry declared on this turn. */
  tools: ClientTool[];
  presetId: string;
  /** Identifies the turn to its tools (one call per turn rules); generated when absent. */
  turnId?: string;
  /** Why the turn runs; the push transport sends it as the turn frame's origin (request transports have none). */
  origin?: TurnWireOrigin;
  signal?: AbortSignal;
  onEvent?: (e: EngineEvent) => void;
}

/** A turn's origin on the wire (push-transport.md): the user wrote, another character addressed this one, or a mod's signal. */
export type TurnWireOrigin = "user" | "addressed" | "signal";

export type Transport = "chat" | "responses";

export interface EngineOptions {
  transport: Transport;
  /** The backend's OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1. */
  baseUrl: string;
  apiKey?: string;
  model?: string;
  /** Deprecated (removed in v0.6.0): the Expression Broker's URL; Responses only. The client then declares no tools. */
  brokerBaseUrl?: string;
  /** The persona: a system message (Chat Completions) or `instructions` (Responses). */
  instructions?: string;
  /** A stream with no byte for this long ends the turn as an error. Default 60 s. */
  idleTimeoutMs?: number;
  fetch?: typeof fetch;
  /** Extra request headers. */
  headers?: Record<string, string>;
}
