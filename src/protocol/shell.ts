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

/**
 * Page → shell. `rects` take clicks (her silhouette, the bubble, the open input); `drag` is where a press
 * and move drags her window (her silhouette).
 */
export const PageToShellSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("hello") }),
  z.object({ type: z.literal("shape"), rects: z.array(PageRectSchema), drag: z.array(PageRectSchema) }),
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
  }),
  /** Open her input (the global shortcut). */
  z.object({ type: z.literal("open-input") }),
  /** Push-to-talk from the global hold key (docs/voice.md#listening): pressed, or let go (send what was said). */
  z.object({ type: z.literal("talk"), down: z.boolean() }),
]);
export type ShellToPage = z.infer<typeof ShellToPageSchema>;
