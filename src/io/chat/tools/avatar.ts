import type { ClientTool, ToolResult } from "./client-tools.ts";

/** body_action's exact results: ok, or one word. */
export const BODY_ACTION_RESULTS = [
  "ok",
  "not_found",
  "blocked",
  "interrupted",
  "busy",
  "unsupported",
  "timeout",
] as const;
export type BodyActionResult = (typeof BODY_ACTION_RESULTS)[number];

export const BODY_ACTIONS = ["sit_on_window", "peek", "move_to", "stand", "go_to_bed"] as const;
export const PEEK_SIDES = ["left", "right"] as const;
export const SPOTS = ["center", "top_left", "top_right", "bottom_left", "bottom_right"] as const;
export const LOOK_TARGETS = ["body", "perch_targets", "screen"] as const;

/** The avatar tools' exact error strings. */
export const AVATAR_ERRORS = {
  unsupported: "error: unsupported",
  screenOff: "error: screen capture is off",
  invalidMonitor: "error: invalid field monitor",
} as const;

export type BodyActionArgs =
  | { action: "sit_on_window"; app: string }
  | { action: "peek"; side: (typeof PEEK_SIDES)[number] }
  | { action: "move_to"; spot: (typeof SPOTS)[number]; monitor?: number }
  | { action: "stand" }
  | { action: "go_to_bed" };

/** What main's avatar executor does for the tools; only main creates one. */
export interface AvatarExecutor {
  bodyAction(args: BodyActionArgs, signal: AbortSignal): Promise<BodyActionResult>;
  bodyState(): Promise<unknown>;
  perchTargets(): Promise<unknown>;
  /** A screenshot of a display (the character's when monitor is omitted), or null for an invalid monitor. */
  screenshot(monitor: number | undefined): Promise<{ display: number; dataUrl: string } | null>;
}

export interface AvatarToolDeps {
  /** The executor, read at call time; null until it is available. */
  executor: () => AvatarExecutor | null;
  /** The screen capture switch, read at call time. */
  screenCaptureOn: () => Promise<boolean>;
}

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

function parseBodyAction(a: Record<string, unknown>): BodyActionArgs | string {
  const action = a.action;
  if (typeof action !== "string" || !(BODY_ACTIONS as readonly string[]).includes(action)) {
    return action === undefined ? "error: missing field action" : "error: invalid field action";
  }
  switch (action) {
    case "sit_on_window":
      if (a.app === undefined || a.app === "") return "error: missing field app";
      if (typeof a.app !== "string") return "error: invalid field app";
      return { action, app: a.app };
    case "peek":
      if (a.side === undefined) return "error: missing field side";
      if (!(PEEK_SIDES as readonly unknown[]).includes(a.side)) return "error: invalid field side";
      return { action, side: a.side as "left" | "right" };
    case "move_to":
      if (a.spot === undefined) return "error: missing field spot";
      if (!(SPOTS as readonly unknown[]).includes(a.spot)) return "error: invalid field spot";
      if (a.monitor !== undefined && (!isInt(a.monitor) || a.monitor < 0))
        return "error: invalid field monitor";
      return {
        action,
        spot: a.spot as (typeof SPOTS)[number],
        ...(a.monitor !== undefined ? { monitor: a.monitor as number } : {}),
      };
    default:
      return { action: action as "stand" | "go_to_bed" };
  }
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
    parameters: {
      type: "object",
      properties: {
        action: { type: "string", enum: [...BODY_ACTIONS] },
        app: {
          type: "string",
          description: "For sit_on_window: the app name, as look at perch_targets lists it.",
        },
        side: { type: "string", enum: [...PEEK_SIDES], description: "For peek." },
        spot: { type: "string", enum: [...SPOTS], description: "For move_to." },
        monitor: {
          type: "integer",
          minimum: 0,
          description: "For move_to: the display number; omitted keeps yours.",
        },
      },
      required: ["action"],
      additionalProperties: false,
    },
    failed: (r) => r !== "ok",
    waitMs: 60_000,
    run: async (args, ctx) => {
      const parsed = parseBodyAction(args);
      if (typeof parsed === "string") return parsed;
      const ex = deps.executor();
      if (!ex) return AVATAR_ERRORS.unsupported;
      return ex.bodyAction(parsed, ctx.signal);
    },
  };
  const look: ClientTool = {
    name: "look",
    description:
      "Looks at your own state. at: body (your position, posture and what you are on, as JSON), perch_targets " +
      "(windows you can sit on and peek edges, as JSON), or screen (a screenshot of a display; optional monitor, " +
      "the same display number as body_action; omitted means your display; needs an image-capable model).",
    parameters: {
      type: "object",
      properties: {
        at: { type: "string", enum: [...LOOK_TARGETS] },
        monitor: { type: "integer", minimum: 0, description: "For screen: the display number." },
      },
      required: ["at"],
      additionalProperties: false,
    },
    switchId: "screen",
    run: async (args): Promise<ToolResult> => {
      const at = args.at;
      if (at === undefined) return "error: missing field at";
      if (!(LOOK_TARGETS as readonly unknown[]).includes(at)) return "error: invalid field at";
      if (at === "screen") {
        if (!(await deps.screenCaptureOn())) return AVATAR_ERRORS.screenOff;
        if (args.monitor !== undefined && (!isInt(args.monitor) || args.monitor < 0))
          return AVATAR_ERRORS.invalidMonitor;
      }
      const ex = deps.executor();
      if (!ex) return AVATAR_ERRORS.unsupported;
      if (at === "body") return JSON.stringify(await ex.bodyState());
      if (at === "perch_targets") return JSON.stringify(await ex.perchTargets());
      const shot = await ex.screenshot(args.monitor as number | undefined);
      if (!shot) return AVATAR_ERRORS.invalidMonitor;
      return { text: `screenshot of display ${shot.display}`, images: [shot.dataUrl] };
    },
  };
  return [bodyAction, look];
}
