/**
 * What a desktop page (src/ui/desktop-view.ts) and the desktop shell around it (shell/, docs/desktop.md "The
 * shell contract") say to each other inside one window. The shell's own contract with the host
 * (shell/contract.ts) imports these from here, so the page and both shells share one copy.
 */
import { z } from "zod";

/** The script message handler a page posts its JSON strings to: `window.webkit.messageHandlers.yui`. */
export const PAGE_HANDLER = "yui";
/** The page's function the shell calls with one message: `window.__yuiShell(message)`. */
export const PAGE_RECEIVER = "__yuiShell";

/** `[x, y, width, height]` in window (CSS) pixels. */
export type PageRect = [number, number, number, number];
const PageRectSchema = z.tuple([z.number(), z.number(), z.number(), z.number()]);

/** What a button of her bubble does: open the Chat or Settings window (the host), or put the note away (her page). */
export const BUBBLE_ACTIONS = ["chat", "settings", "dismiss"] as const;
export type BubbleAction = (typeof BUBBLE_ACTIONS)[number];

/** The longest text a bubble carries (the full reply is in Chat). */
export const BUBBLE_MAX_TEXT = 20_000;

/**
 * What her bubble shows (docs/desktop.md "Her bubble"): her words (`speech`) or the app's note (`note`: an
 * error, styled apart from her speech), commands to type (shown as code), and buttons. `streaming`: her reply
 * is still coming (the newest line is kept in view); `fading`: it is about to go.
 */
export const BubbleSchema = z.object({
  kind: z.enum(["speech", "note"]),
  text: z.string().max(BUBBLE_MAX_TEXT),
  commands: z.array(z.string().max(200)).max(4),
  actions: z.array(z.object({ action: z.enum(BUBBLE_ACTIONS), label: z.string().max(60) })).max(3),
  streaming: z.boolean(),
  fading: z.boolean(),
});
export type Bubble = z.infer<typeof BubbleSchema>;

/**
 * Page → shell. `rects` take clicks (her silhouette, the open input); `drag` is where a press and move drags
 * her window (her silhouette). `bubble`: what her bubble shows now (null: none), drawn by the shell in a window
 * of its own beside her head; `face`: her face's box in her window (null: not known), which the bubble never
 * covers. From the bubble's own window: `bubble-size`, the size its content wants, and `bubble-action`, a
 * button pressed.
 */
export const PageToShellSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello") }),
  z.object({ type: z.literal("shape"), rects: z.array(PageRectSchema), drag: z.array(PageRectSchema) }),
  z.object({ type: z.literal("bubble"), bubble: BubbleSchema.nullable() }),
  z.object({ type: z.literal("face"), rect: PageRectSchema.nullable() }),
  z.object({
    type: z.literal("bubble-size"),
    width: z.number(),
    height: z.number(),
    /** Its text is scrolled to its end (the newest line in view). */
    end: z.boolean().optional(),
  }),
  z.object({ type: z.literal("bubble-action"), action: z.enum(BUBBLE_ACTIONS) }),
]);
export type PageToShell = z.infer<typeof PageToShellSchema>;

/** Shell → page. */
export const ShellToPageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("shell"),
    shell: z.string(),
    /** False: no transparency; the page draws an opaque background in a framed window. */
    compositor: z.boolean(),
    wayland: z.boolean(),
    /** The shell draws her bubble in a window of its own (the page sends `bubble` and `face`). */
    bubbles: z.boolean().optional(),
    /** Whether the shell has a tray icon (false: she says how to reach her menu). */
    tray: z.boolean().optional(),
  }),
  /** Open her input (the global shortcut). */
  z.object({ type: z.literal("open-input") }),
  /** Push-to-talk from the global hold key (docs/voice.md#listening): pressed, or let go (send what was said). */
  z.object({ type: z.literal("talk"), down: z.boolean() }),
  /** To the bubble's window: what to show. */
  z.object({ type: z.literal("bubble-show"), bubble: BubbleSchema }),
  /** To her page: a button of her bubble was pressed (`dismiss`; chat and settings go to the host). */
  z.object({ type: z.literal("bubble-action"), action: z.enum(BUBBLE_ACTIONS) }),
]);
export type ShellToPage = z.infer<typeof ShellToPageSchema>;
