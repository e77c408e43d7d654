import type { ClientTool } from "./client-tools.ts";

/** How a transport declares tools: Chat Completions nests the function, Responses flattens it. */
export type DeclareTransport = "chat" | "responses";

/** The tools[] a request carries for these tools, in registry order. */
export function declareTools(
  tools: readonly ClientTool[],
  transport: DeclareTransport,
): Record<string, unknown>[] {
  return tools.map((t) =>
    transport === "chat"
      ? { type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } }
      : {
          type: "function",
          name: t.name,
          description: t.description,
          parameters: t.parameters,
          strict: false,
        },
  );
}
