// The shared kit every YUI mod is built on: one loopback guard, one way to serve MCP, one CLI port,
// and the one way every listener (mods and host) reads a capped JSON body and answers in JSON.

export { parsePort, portFromArgs } from "./cli.ts";
export { connectClient } from "./client.ts";
export { GUARD_REFUSALS, isLoopbackHost, isLoopbackOrigin, loopbackGuard } from "./guard.ts";
export {
  BodyAbortedError,
  BodyNotJsonError,
  BodyTooLargeError,
  parseJsonBody,
  type ReadBodyOptions,
  readBody,
  readJsonBody,
  sendJson,
  sendJsonError,
} from "./http-body.ts";
export {
  LAUNCH_MESSAGES,
  type Launched,
  type LaunchOptions,
  launchMod,
  STOP_GRACE_MS,
  startFailureLine,
} from "./launch.ts";
export { listenLoopback } from "./listen.ts";
export { QUOTE_MAX, quoteInput } from "./quote.ts";
export {
  type RunModOptions,
  runMod,
  SERVE_ERRORS,
  type ServedMcp,
  type ServeMcpOptions,
  serveMcp,
} from "./serve.ts";
export { toolError, toolJson, toolText } from "./tool-result.ts";
