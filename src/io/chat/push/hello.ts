/** The push client's hello (docs/push-transport.md "hello and welcome"): the window's tools as push declares them. */
import type { ClientTool } from "../tools/client-tools.ts";
import { GENERATE_EXPRESS } from "../tools/client-tools.ts";
import { type ClientFrame, PUSH_PROTOCOL_VERSION } from "./frames.ts";
import { pushWaitMs } from "./tool-calls.ts";

/** What hello declares; built at every connect. */
export interface HelloInfo {
  preset: { id: string; name: string };
  window: string;
  /** The window's registry; generate_express is left out of hello.tools. */
  tools: ClientTool[];
}

/** The registry as push declares it: everything but generate_express, whose cues ride in segments. */
export function pushDeclared(tools: readonly ClientTool[]): ClientTool[] {
  return tools.filter((t) => t.name !== GENERATE_EXPRESS);
}

/** hello.tools for a registry (what `yui tools --transport push` prints). */
export function helloTools(tools: readonly ClientTool[]) {
  return pushDeclared(tools).map((t) => ({
    name: t.name,
    description: t.description,
    parameters: t.parameters,
    wait_ms: pushWaitMs(t),
  }));
}

/** The hello frame of a connection. */
export function helloFrame(info: HelloInfo, clientVersion: string): ClientFrame {
  return {
    type: "hello",
    v: PUSH_PROTOCOL_VERSION,
    client: { name: "yui", version: clientVersion },
    preset: info.preset,
    window: info.window,
    tools: helloTools(info.tools),
  };
}
