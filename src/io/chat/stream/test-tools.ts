/** Small tools for the engine's tests: a question-answering tool, a cue-only tool, a thrower, an image tool. */
import type { ClientTool } from "../tools/client-tools.ts";

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
