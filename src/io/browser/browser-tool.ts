/**
 * The browser tool (spec: client-tools.txt, "browser"): runs backend-written JavaScript against ego lite, in this
 * character's own task space, through the host. Declared in every switch state; the switch is read per call.
 */
import { z } from "zod";
import type { ClientTool, ToolResult } from "../chat/tools/client-tools.ts";
import { declaredParameters } from "../chat/tools/schema.ts";
import type { BrowserRelay } from "./browser-relay.ts";
import { BROWSER_RESULT, BROWSER_TIMINGS } from "./results.ts";

/** What the browser tool needs from its window. */
export interface BrowserToolDeps {
  /** Reads the yui.browser switch ({enabled}) when a call runs. */
  readSwitch(): Promise<boolean>;
  /** The calling window's preset; its task space is yui-<presetId>. */
  presetId: string;
  /** The renderer's relay to the host's browser commands. */
  relay: BrowserRelay;
}

/** The tool description: the contract, which takes precedence over ego lite's guide. */
export const BROWSER_TOOL_DESCRIPTION = [
  "Runs your JavaScript against the ego lite browser on the user's computer, in this character's own task space of it. ego lite holds the user's sign-ins; reach and act on pages through its browser SDK. This description takes precedence over the guide.",
  // The contract, in the spec's own words.
  "- code is the body of an async function: top-level await works, and a static import does not, so a module loads through await import().",
  "- task, screenshot, and every name starting __yui are reserved; variables start fresh on every call.",
  "- The injected task is the task space's handle: use it, do not call taskSpace(), and do not finish the space.",
  "- Observations go to console.log; the output is text.",
  "- await screenshot(page) attaches an image of the page's viewport. Images need an image-capable model. screenshot restores a minimized ego lite window before it captures.",
  "- A space the user took over fails with EGO_TASK_SPACE_NAME_IN_USE until the user hands it back in ego lite.",
  "- Error line numbers are 5 more than the line in code.",
  "- guide: true returns the full guide (send it without code).",
].join("\n");

/** The browser tool's arguments, the one source of its declared schema and its check: neither required. */
export const BrowserArgsSchema = z.strictObject({
  code: z.string().describe("The body of an async function, run after the client's prelude.").optional(),
  guide: z
    .boolean()
    .describe("true returns the installed ego lite's guide instead of running code.")
    .optional(),
});

/** The declared parameters: neither argument required, no others allowed. */
export const BROWSER_TOOL_PARAMETERS = declaredParameters(BrowserArgsSchema);

/** No code: absent, null, or blank (a missing or empty code answers error: missing field code). */
function isEmptyCode(code: unknown): boolean {
  return code === undefined || code === null || (typeof code === "string" && code.trim() === "");
}

/** Creates the browser tool for one window: switch id "browser", the client's 32 s wait. */
export function createBrowserTool(deps: BrowserToolDeps): ClientTool {
  return {
    name: "browser",
    description: BROWSER_TOOL_DESCRIPTION,
    parameters: BROWSER_TOOL_PARAMETERS,
    switchId: "browser",
    waitMs: BROWSER_TIMINGS.waitMs,
    async run(args, ctx): Promise<ToolResult> {
      if (!(await deps.readSwitch())) return BROWSER_RESULT.off;
      const { code } = args;
      // Only a literal true asks for the guide; guide: false (or anything not a boolean) reads as no guide.
      const guide = BrowserArgsSchema.shape.guide.safeParse(args.guide);
      if (guide.success && guide.data === true) {
        if (!isEmptyCode(code)) return BROWSER_RESULT.invalidCode;
        return deps.relay.guide(ctx.signal);
      }
      if (isEmptyCode(code)) return BROWSER_RESULT.missingCode;
      const script = BrowserArgsSchema.shape.code.safeParse(code);
      if (!script.success || script.data === undefined) return BROWSER_RESULT.invalidCode;
      return deps.relay.run(deps.presetId, script.data, ctx.signal);
    },
  };
}
