/**
 * The turn sender (the spec keeps this file's name from when it was the "wire dispatcher"): it sends one turn of
 * a window to the window's backend caller. On a request transport, builds the registry from the vocabulary and the window's
 * tools loaded at this moment, builds the client context, and hands both to the engine. On push the tools are
 * declared once per connection, in hello (docs/push-transport.md): the turn builds no registry and its context
 * describes the tools that hello declared.
 */
import type { EngineEvent, TurnEnd, TurnInput, TurnWireOrigin } from "../../io/chat/stream/types.ts";
import { type ClientTool, createClientTools } from "../../io/chat/tools/client-tools.ts";
import { createGenerateExpressTool } from "../tools/express.ts";
import type { Vocabulary } from "../vocabulary/vocabulary.ts";
import { buildClientContext, timeLine, toolSwitchesLine } from "./client-context.ts";

/** The backend caller: the request engine, or the push client's adapter. */
export interface BackendCaller {
  runTurn(input: TurnInput): Promise<TurnEnd>;
  /**
   * A caller that declares its tools per connection rather than per turn (push: hello.tools) gives them here;
   * the turn then builds no registry of its own, and its context describes these.
   */
  declaredTools?(): Promise<readonly ClientTool[]>;
}

export interface TurnSenderDeps {
  caller: BackendCaller;
  presetId: string;
  /** The vocabulary loaded now (re-read each turn, so an edit reaches the next turn's schema). */
  vocabulary: () => Vocabulary;
  /** The tools this window hands over, built now (their enums read the open presets now). */
  windowTools: () => ClientTool[] | Promise<ClientTool[]>;
  /** The current switch states, by switch id. */
  switches: () => Promise<Record<string, boolean>>;
  /** More context lines for this turn (relation:, addressed turn, ...). */
  contextLines?: (tools: readonly ClientTool[]) => Promise<(string | null)[]>;
  now?: () => Date;
  timeZone?: string;
}

export interface SendTurnInput {
  text: string;
  turnId?: string;
  /** Context lines for this turn only (an addressed turn's). */
  context?: string[];
  /** Why the turn runs (the push turn frame's origin); a user turn when absent. */
  origin?: TurnWireOrigin;
  signal?: AbortSignal;
  onEvent?: (e: EngineEvent) => void;
}

/** Builds the turn's registry (the clientTools of the backend caller). */
export async function buildTurnRegistry(
  deps: Pick<TurnSenderDeps, "vocabulary" | "windowTools">,
): Promise<ClientTool[]> {
  return createClientTools(createGenerateExpressTool(deps.vocabulary()), await deps.windowTools());
}

/** What a window sends its turns through. */
export type TurnSender = ReturnType<typeof createTurnSender>;

/** Creates the turn sender of a window over its backend caller. */
export function createTurnSender(deps: TurnSenderDeps) {
  const now = deps.now ?? (() => new Date());
  const timeZone = deps.timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
  return {
    async runTurn(input: SendTurnInput): Promise<TurnEnd> {
      const tools = deps.caller.declaredTools
        ? [...(await deps.caller.declaredTools())]
        : await buildTurnRegistry(deps);
      const switches = await deps.switches();
      // The context describes the tools the request declares: the engine passes the ones it declares (none
      // when the deprecated broker owns the tools), so no tool switches: or relation: line names a tool the
      // backend was not offered.
      const contextFor = async (declared: readonly ClientTool[]) =>
        buildClientContext([
          timeLine(now(), timeZone),
          toolSwitchesLine(declared, switches),
          ...(deps.contextLines ? await deps.contextLines(declared) : []),
          ...(input.context ?? []),
        ]);
      return deps.caller.runTurn({
        text: input.text,
        context: await contextFor(tools),
        contextFor,
        tools,
        presetId: deps.presetId,
        turnId: input.turnId,
        origin: input.origin,
        signal: input.signal,
        onEvent: input.onEvent,
      });
    },
  };
}
