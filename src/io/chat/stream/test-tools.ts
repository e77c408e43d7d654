/** Small tools for the engine's tests: a question-answering tool, a cue-only tool, a thrower, an image tool. */
import type { ScriptedBackend } from "../../../../tools/scripted-backend/server.ts";
import type { ClientTool } from "../tools/client-tools.ts";
import type { ChatEngine } from "./engine.ts";
import type { EngineEvent } from "./types.ts";

const obj = { type: "object", properties: {}, additionalProperties: true };

export function lookupTool(answer = "42"): ClientTool {
  return { name: "lookup", description: "looks up", parameters: obj, run: async () => answer };
}

export function expressTool(): ClientTool {
  return {
    name: "generate_express",
    description: "cue",
    parameters: obj,
    oneWay: true,
    run: async () => "ok",
  };
}

export function throwingTool(): ClientTool {
  return {
    name: "explode",
    description: "throws",
    parameters: obj,
    run: async () => {
      throw new Error("kaboom");
    },
  };
}

export const PNG_DATA_URL = "data:image/png;base64,iVBORw0KGgo=";

export function imageTool(): ClientTool {
  return {
    name: "look",
    description: "looks",
    parameters: obj,
    run: async () => ({ text: "screenshot of display 1", images: [PNG_DATA_URL] }),
  };
}

/** Runs one turn with the default test tools (or the given ones), collecting every event it reports. */
export async function collectTurn(
  e: ChatEngine,
  text: string,
  tools: ClientTool[] = [expressTool(), lookupTool()],
) {
  const events: EngineEvent[] = [];
  const end = await e.runTurn({ text, tools, presetId: "p1", onEvent: (ev) => events.push(ev) });
  return { end, events };
}

/** The JSON bodies the scripted backend received, in order. */
export function requestBodies(backend: ScriptedBackend): Record<string, unknown>[] {
  return backend.requests.map((r) => r.body as Record<string, unknown>);
}
