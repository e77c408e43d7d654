/**
 * The contract between the host and its pages (docs/architecture.md#the-contract-module): bridge frames,
 * commands, events, store keys and limits. Both sides import it; neither keeps a copy. No Node API, no DOM.
 */
export * from "./body.ts";
export * from "./commands.ts";
export * from "./events.ts";
export * from "./frames.ts";
export * from "./history.ts";
export * from "./keys.ts";
export * from "./limits.ts";
export * from "./preset.ts";
export * from "./relations.ts";
export * from "./shell.ts";
export * from "./store-keys.ts";
