import { z } from "zod";
import type { ClientTool, ToolResult } from "../../io/chat/tools/client-tools.ts";
import { checkArgument, declaredParameters, invalidField, missingField } from "../../io/chat/tools/schema.ts";
import {
  type AvatarExecutor,
  type BodyActionArgs,
  BodyActionArgsSchema,
  type BodyActionResult,
  checkBodyAction,
  GESTURE_WAIT_MS,
  LOOK_TARGETS,
} from "../../protocol/body.ts";

/** The avatar tools' exact error strings (look's; body_action answers its result words bare). */
export const AVATAR_ERRORS = {
  unsupported: "error: unsupported",
  screenOff: "error: screen capture is off",
  invalidMonitor: "error: invalid field monitor",
} as const;

const rule = BodyActionArgsSchema.shape;
/**
 * body_action's declared arguments: the contract's one schema (BodyActionArgsSchema, src/protocol/body.ts) with the
 * words the model reads. Which field an action needs is checkBodyAction's, in the spec's order.
 */
const DeclaredBodyActionArgs = z.strictObject({
  action: rule.action,
  app: rule.app
    .unwrap()
    .describe("For sit_on_window: the app name, as look at perch_targets lists it.")
    .optional(),
  side: rule.side.unwrap().describe("For peek.").optional(),
  spot: rule.spot.unwrap().describe("For move_to.").optional(),
  monitor: rule.monitor.unwrap().describe("For move_to: the display number; omitted keeps yours.").optional(),
});

/** look's arguments: the one source of its declared schema and its check. */
export const LookArgsSchema = z.strictObject({
  at: z.enum(LOOK_TARGETS),
  monitor: z.int().min(0).describe("For screen: the display number.").optional(),
});

// Static: generated once, shared by every window's tools.
const BODY_ACTION_PARAMETERS = declaredParameters(DeclaredBodyActionArgs);
const LOOK_PARAMETERS = declaredParameters(LookArgsSchema);

export interface AvatarToolDeps {
  /** The executor, read at call time; null until it is available. */
  executor: () => AvatarExecutor | null;
  /** The screen capture switch, read at call time. */
  screenCaptureOn: () => Promise<boolean>;
}

/** body_action's check (checkBodyAction, the contract's): the executor's arguments, or the exact error string. */
function parseBodyAction(a: Record<string, unknown>): BodyActionArgs | string {
  const r = checkBodyAction(a);
  if ("action" in r) return r;
  return r.missing ? missingField(r.field) : invalidField(r.field);
}

/** Builds body_action and look over main's avatar executor. */
export function createAvatarTools(deps: AvatarToolDeps): ClientTool[] {
  const bodyAction: ClientTool = {
    name: "body_action",
    description:
      "Moves your body on the user's desktop. action: sit_on_window (needs app: the app whose window you sit on), " +
      "peek (needs side: left or right, around the frontmost window's edge), move_to (needs spot: center, top_left, " +
      "top_right, bottom_left or bottom_right; optional monitor number), stand (leave a perch, a peek or the bed), " +
      "go_to_bed (lie down on a bed where you stand). Answers ok, or one word: not_found, blocked, interrupted, busy, " +
      "unsupported, timeout.",
    parameters: BODY_ACTION_PARAMETERS,
    failed: (r) => r !== "ok",
    // The body stops a gesture at its limit and answers timeout; push waits past that for the body's word.
    waitMs: GESTURE_WAIT_MS,
    run: async (args, ctx) => {
      const parsed = parseBodyAction(args);
      if (typeof parsed === "string") return parsed;
      const ex = deps.executor();
      // The spec's bare word (body_action's results carry no error: prefix); look keeps error: unsupported.
      if (!ex) return "unsupported" satisfies BodyActionResult;
      return ex.bodyAction(parsed, ctx.signal);
    },
  };
  const look: ClientTool = {
    name: "look",
    description:
      "Looks at your own state. at: body (your position, posture and what you are on, as JSON), perch_targets " +
      "(windows you can sit on and peek edges, as JSON), or screen (a screenshot of a display; optional monitor, " +
      "the same display number as body_action; omitted means your display; needs an image-capable model).",
    parameters: LOOK_PARAMETERS,
    switchId: "screen",
    run: async (args): Promise<ToolResult> => {
      const at = checkArgument(LookArgsSchema, "at", args.at);
      if (!at.ok) return at.error;
      let monitor: number | undefined;
      if (at.value === "screen") {
        if (!(await deps.screenCaptureOn())) return AVATAR_ERRORS.screenOff;
        const m = checkArgument(LookArgsSchema, "monitor", args.monitor);
        if (!m.ok) return AVATAR_ERRORS.invalidMonitor;
        monitor = m.value;
      }
      const ex = deps.executor();
      if (!ex) return AVATAR_ERRORS.unsupported;
      if (at.value === "body") return JSON.stringify(await ex.bodyState());
      if (at.value === "perch_targets") return JSON.stringify(await ex.perchTargets());
      const shot = await ex.screenshot(monitor);
      if (!shot) return AVATAR_ERRORS.invalidMonitor;
      return { text: `screenshot of display ${shot.display}`, images: [shot.dataUrl] };
    },
  };
  return [bodyAction, look];
}
