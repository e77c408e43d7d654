/**
 * Her body across the host–page line (docs/body.md "The avatar executor"): the body actions, their result
 * words and arguments, the executor the tools and the ingress's avatar routes call, and the snapshot the host
 * sends main's page so that she plays the clip of her posture. The executor lives where the desktop is known
 * (the host, next to the shell and the window model) and exists while main's desktop window holds it
 * (`body_attach`); every other caller reaches it through the bridge or in process.
 */
import { z } from "zod";

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

/**
 * How long a gesture may run. Past it the body stops her where she is and the gesture answers `timeout`, whoever
 * called it (a request transport, push, the avatar mod, `yui chat --host`): the limit is the body's, in one place
 * (`BodyTimings.gestureMs`, docs/body.md).
 */
export const GESTURE_LIMIT_MS = 60_000;
/**
 * How long a caller waits for a gesture's answer (push's `wait_ms`, the ingress's backstop): past the body's
 * limit, so the word a caller hears is the body's `timeout`, never its own.
 */
export const GESTURE_WAIT_MS = GESTURE_LIMIT_MS + 5_000;

export const BODY_ACTIONS = ["sit_on_window", "peek", "move_to", "stand", "go_to_bed"] as const;
export const PEEK_SIDES = ["left", "right"] as const;
export const SPOTS = ["center", "top_left", "top_right", "bottom_left", "bottom_right"] as const;
export const LOOK_TARGETS = ["body", "perch_targets", "screen"] as const;

/**
 * body_action's arguments, each field with its rule: the one schema behind the tool's declared parameters and its
 * check (src/app/tools/avatar.ts, which adds the model's descriptions), the bridge command's arguments
 * (BodyActionSchema) and the ingress's gesture bodies (host/ingress/avatar-routes.ts). Flat, as the model sees
 * it: which field an action needs is BODY_ACTION_FIELDS.
 */
export const BodyActionArgsSchema = z.strictObject({
  action: z.enum(BODY_ACTIONS),
  app: z.string().min(1).max(256).optional(),
  side: z.enum(PEEK_SIDES).optional(),
  spot: z.enum(SPOTS).optional(),
  monitor: z.int().min(0).optional(),
});
export type BodyActionField = Exclude<keyof typeof BodyActionArgsSchema.shape, "action">;

/** The field each action needs, and the one it may take besides; the others ignore every other field. */
export const BODY_ACTION_FIELDS: Record<
  (typeof BODY_ACTIONS)[number],
  { needs?: BodyActionField; may?: BodyActionField }
> = {
  sit_on_window: { needs: "app" },
  peek: { needs: "side" },
  move_to: { needs: "spot", may: "monitor" },
  stand: {},
  go_to_bed: {},
};

const field = BodyActionArgsSchema.shape;
/** One body action as the executor receives it (checked already): the action plus the field it needs. */
export const BodyActionSchema = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("sit_on_window"), app: field.app.unwrap() }),
  z.strictObject({ action: z.literal("peek"), side: field.side.unwrap() }),
  z.strictObject({ action: z.literal("move_to"), spot: field.spot.unwrap(), monitor: field.monitor }),
  z.strictObject({ action: z.literal("stand") }),
  z.strictObject({ action: z.literal("go_to_bed") }),
]);
export type BodyActionArgs = z.infer<typeof BodyActionSchema>;

/** Why a call's body_action arguments were refused: the field, and whether it was missing or did not fit. */
export type BodyActionProblem = { field: "action" | BodyActionField; missing: boolean };

/**
 * Checks body_action's arguments in the spec's order: the action, then the field it needs (an empty app counts
 * as none), then the field it may take. Answers the executor's arguments, or the problem.
 */
export function checkBodyAction(a: Record<string, unknown>): BodyActionArgs | BodyActionProblem {
  const action = field.action.safeParse(a.action);
  if (!action.success) return { field: "action", missing: a.action === undefined };
  const { needs, may } = BODY_ACTION_FIELDS[action.data];
  const args: Record<string, unknown> = { action: action.data };
  for (const name of [needs, may]) {
    if (!name) continue;
    const value = name === "app" && a.app === "" ? undefined : a[name];
    if (value === undefined) {
      if (name === needs) return { field: name, missing: true };
      continue;
    }
    const parsed = field[name].safeParse(value);
    if (!parsed.success) return { field: name, missing: false };
    args[name] = parsed.data;
  }
  return args as BodyActionArgs;
}

/** A screenshot of one display, as look at: screen hands it on. */
export const ScreenShotSchema = z.object({ display: z.int().min(0), dataUrl: z.string() });
export type ScreenShot = z.infer<typeof ScreenShotSchema>;

/** What main's avatar executor does for the tools and the avatar routes; only main's window has one. */
export interface AvatarExecutor {
  bodyAction(args: BodyActionArgs, signal: AbortSignal): Promise<BodyActionResult>;
  bodyState(): Promise<unknown>;
  perchTargets(): Promise<unknown>;
  /** A screenshot of a display (the character's when monitor is omitted), or null for an invalid monitor. */
  screenshot(monitor: number | undefined): Promise<ScreenShot | null>;
}

/** Her postures, as `look at: body` reports them and her clips follow them. */
export const POSTURES = [
  "standing",
  "sitting",
  "peeking",
  "dragging",
  "walking",
  "climbing",
  "lying",
] as const;
export type Posture = (typeof POSTURES)[number];
/** The bed's phases: appearing, her lie-down clip, asleep, the wake clip, fading (stand during lie-down). */
export const BED_PHASES = ["setup", "lying_down", "asleep", "waking", "fading"] as const;
export type BedPhase = (typeof BED_PHASES)[number];

/**
 * The `yui://body` event: what main's page needs to animate her, sent on every change of posture, peek side,
 * bed phase or motion (not on every step of a move; the host moves the window).
 */
export const BodyEventSchema = z.object({
  /** The preset whose window holds the executor. */
  presetId: z.string(),
  posture: z.enum(POSTURES),
  peek: z.enum(PEEK_SIDES).nullable(),
  bed: z.enum(BED_PHASES).nullable(),
  moving: z.boolean(),
  /** Walking direction while moving: -1 left, 1 right, 0 straight up or down. */
  facing: z.union([z.literal(-1), z.literal(0), z.literal(1)]),
  /** Her window is fully covered by other windows (draw nothing until it is not). */
  occluded: z.boolean(),
  /**
   * The part of her window's height, from its bottom, not to draw (0 to 1): her window hangs lower than the edge
   * she is on so that her head stays on screen, and what is below that edge does not show (docs/body.md).
   */
  clip: z.number().min(0).max(1).optional(),
  /** Falling after the user let go of her in mid-air (or after a peek), then her landing. */
  fall: z.enum(["falling", "landing"]).nullable().optional(),
  /** Where the pointer is, in her window's normalized device coordinates (-1..1, y up), while she watches it. */
  gaze: z.tuple([z.number(), z.number()]).nullable().optional(),
});
export type BodyEvent = z.infer<typeof BodyEventSchema>;
export const BODY_EVENT = "yui://body";

/**
 * The `yui://occlusion` event: a pet window (not main's, whose `yui://body` event carries it) is now fully
 * covered by other windows, or no longer is. Sent when it changes while main's body watches the desktop.
 */
export const OcclusionEventSchema = z.object({
  /** The preset whose pet window it is. */
  presetId: z.string(),
  occluded: z.boolean(),
});
export type OcclusionEvent = z.infer<typeof OcclusionEventSchema>;
export const OCCLUSION_EVENT = "yui://occlusion";

/** The Character tab's body settings (`yui.<presetId>.body`). */
export const BodySettingsSchema = z.strictObject({
  /** How long she sleeps after go_to_bed before she wakes on her own, in seconds. */
  wake_timeout_s: z.int().min(10).max(86_400),
  /** No bed scene (go_to_bed answers unsupported); her other moves still happen. */
  reduced_motion: z.boolean(),
});
export type BodySettingsValue = z.infer<typeof BodySettingsSchema>;
export const DEFAULT_BODY_SETTINGS: BodySettingsValue = { wake_timeout_s: 1200, reduced_motion: false };
/** The store key of a preset's body settings. */
export const bodySettingsKey = (presetId: string) => `yui.${presetId}.body`;

/** Her sizes as Settings and her menu offer them: her window's scale (1: 360×560 px). */
export const SIZES = [
  { id: "small", label: "Small", scale: 0.4 },
  { id: "medium", label: "Medium", scale: 0.55 },
  { id: "large", label: "Large", scale: 0.75 },
  { id: "full", label: "Full", scale: 1 },
] as const;
export type SizeId = (typeof SIZES)[number]["id"];

/** A character's manners on the desktop (`yui.<presetId>.desktop`): her size, and whether she moves on her own. */
export const DesktopSettingsSchema = z.strictObject({
  /** Her window's scale (her window, her share of an edge, her silhouette); 0.55 leaves a laptop screen usable. */
  scale: z.number().min(0.25).max(1.5),
  /** Now and then she does something by herself (a few steps, watching the pointer, sitting on a window). */
  wander: z.boolean(),
});
export type DesktopSettingsValue = z.infer<typeof DesktopSettingsSchema>;
export const DEFAULT_DESKTOP_SETTINGS: DesktopSettingsValue = { scale: 0.55, wander: true };
/** The store key of a preset's desktop manners. */
export const desktopSettingsKey = (presetId: string) => `yui.${presetId}.desktop`;

/**
 * Where a character was on the desktop, per monitor layout (`yui.<presetId>.place`, written by the host): the
 * point under her (her window's bottom-centre standing, her seat sitting), by layout key (host/desktop/places.ts).
 */
export const PlaceMemorySchema = z.strictObject({
  layouts: z.record(z.string().max(400), z.strictObject({ x: z.number(), y: z.number() })),
});
export type PlaceMemory = z.infer<typeof PlaceMemorySchema>;
/** The store key of where a preset was on the desktop. */
export const placeKey = (presetId: string) => `yui.${presetId}.place`;
