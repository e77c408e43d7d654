/** The browser tool: createBrowserTool and its exact strings. */
export { BROWSER_TOOL_DESCRIPTION, type BrowserToolDeps, createBrowserTool } from "./browser-tool.ts";
export * from "./results.ts";
