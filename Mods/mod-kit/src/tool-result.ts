import type { CallToolResult } from "@modelcontextprotocol/server";

/** A tool error the agent can act on: an MCP tool result with isError and the message as text. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** A plain successful text result. */
export function toolText(text: string): CallToolResult {
  return { content: [{ type: "text", text }] };
}

/** A successful result carrying a JSON object both as text (for any client) and as structuredContent. */
export function toolJson(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}
