/**
 * The deprecated Expression Broker path (removed in v0.6.0): with broker_base_url set on Responses, the
 * broker's backend declares the tools, so the client declares none and answers none; function_call items
 * still play as cues.
 */

/** true when the broker's backend owns the tools for this transport and setting. */
export function brokerOwnsTools(transport: "chat" | "responses", brokerBaseUrl: string | undefined): boolean {
  return transport === "responses" && !!brokerBaseUrl;
}
