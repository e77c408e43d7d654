/**
 * The shell contract (docs/desktop.md): what the host and a desktop shell (shell/gtk today; an Electron or
 * native shell tomorrow) say to each other, as JSON lines on the shell's stdin (host → shell) and stdout
 * (shell → host), and what a desktop page says to its shell. Kept narrow on purpose: windows, their input
 * shape, their geometry and the monitors; everything else goes through the host's bridge like any window.
 */
import { z } from "zod";

/** An axis-aligned rectangle in screen (or window) pixels. */
export const RectSchema = z.object({
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
});
export type Rect = z.infer<typeof RectSchema>;

/** One monitor: its whole area and its work area (panels and docks excluded). */
export const MonitorSchema = z.object({
  index: z.number().int(),
  name: z.string(),
  primary: z.boolean(),
  geometry: RectSchema,
  workarea: RectSchema,
});
export type Monitor = z.infer<typeof MonitorSchema>;

/** A character's window: `id` is the preset id. */
export interface OpenWindow {
  type: "open";
  id: string;
  /** The character's name: the window's title. */
  title: string;
  /** The page: `<host>/?view=desktop&preset=<id>&role=main|pet`. */
  url: string;
  width: number;
  height: number;
  /** Where to put it (kept on a visible monitor); the window manager decides when left out. */
  x?: number;
  y?: number;
  /** An ordinary window (chat, settings, quick controls): framed, opaque, in the taskbar, not above. */
  frame?: boolean;
}

/** What her menu (a right-click on her) offers; the host decides what each does. */
export const MENU_ACTIONS = [
  "chat",
  "settings",
  "quick",
  "hide",
  "show",
  "reset-position",
  "size-small",
  "size-medium",
  "size-large",
  "size-full",
  "click-through",
  "hands-free",
  "quit",
] as const;

/** Host → shell. */
export type HostToShell =
  | OpenWindow
  | { type: "close"; id: string }
  | { type: "move"; id: string; x: number; y: number }
  /** A new size (her scale); the window's bottom-centre stays where it is. */
  | { type: "resize"; id: string; width: number; height: number }
  /** Kept above the other windows (her usual stacking), or not (she drops below a focused window of YUI's). */
  | { type: "above"; id: string; above: boolean }
  | { type: "title"; id: string; title: string }
  /** Off: the whole window takes input (the way back when the silhouette is wrong). */
  | { type: "click-through"; id: string; enabled: boolean }
  /** Bring her window forward with her input open (the global shortcut). */
  | { type: "input"; id: string }
  /** Push-to-talk from the global hold key: pressed (her window shown, her input open, talking) or let go (sent). */
  | { type: "talk"; id: string; down: boolean }
  /** Whether hands-free listening is on (the store's `yui.listen`): her menu's and the tray's entry follow it. */
  | { type: "hands-free"; enabled: boolean }
  /** Hide or show a window (the tray's "Hide characters" / "Show characters"). */
  | { type: "visible"; id: string; visible: boolean }
  /**
   * A PNG of a screen rectangle (root pixels), for look at: screen; answered by a `capture` message with the
   * same `req`. Her own windows show in it as they are drawn.
   */
  | { type: "capture"; req: number; x: number; y: number; width: number; height: number }
  | { type: "quit" }
  /**
   * The app's lasting sign (docs/desktop.md "The first run"): `warning` is what is wrong (no backend answers),
   * shown on the tray's icon and first in its menu until the host sends null.
   */
  | { type: "status"; warning: string | null };

const WindowGeometry = {
  id: z.string(),
  x: z.number(),
  y: z.number(),
  width: z.number(),
  height: z.number(),
  /** Index into the monitor list; -1 when unknown. */
  monitor: z.number().int(),
};

/** Shell → host; validated by the host, a line that does not parse is logged and ignored. */
export const ShellToHostSchema = z.discriminatedUnion("type", [
  /** First line: which shell, whether a compositor runs (else windows are framed and opaque), the monitors. */
  z.object({
    type: z.literal("ready"),
    shell: z.string(),
    compositor: z.boolean(),
    wayland: z.boolean(),
    /** Whether a tray icon with YUI's menu was created (StatusNotifierItem or XEmbed). */
    tray: z.boolean().optional(),
    /** The global shortcut bound to open main's input (GTK accelerator syntax), or null. */
    shortcut: z.string().nullable().optional(),
    monitors: z.array(MonitorSchema),
  }),
  z.object({ type: z.literal("monitors"), monitors: z.array(MonitorSchema) }),
  z.object({ type: z.literal("compositor"), compositor: z.boolean() }),
  z.object({ type: z.literal("mapped"), ...WindowGeometry }),
  z.object({ type: z.literal("geometry"), ...WindowGeometry }),
  /** The input shape now in force: how many rectangles take clicks. */
  z.object({ type: z.literal("shape"), id: z.string(), rects: z.number().int() }),
  /** The user started dragging her; the window manager moves the window. */
  z.object({ type: z.literal("drag"), id: z.string() }),
  /** The user let go of her (the button is up): where her window ended. */
  z.object({ type: z.literal("drag-end"), ...WindowGeometry }),
  /** A `capture`'s answer: the PNG as base64, or why there is none. */
  z.object({
    type: z.literal("capture"),
    req: z.number().int(),
    png: z.string().optional(),
    error: z.string().optional(),
  }),
  /** The user pressed the global shortcut. */
  z.object({ type: z.literal("shortcut") }),
  /** The user chose an entry of her menu (`id` her window) or of the tray's (`id` ""). */
  z.object({ type: z.literal("menu"), id: z.string(), action: z.enum(MENU_ACTIONS) }),
  /**
   * Her bubble's window was placed (or hidden: `width` 0) beside her, or what it shows changed: its place, her
   * face's box on the screen (null: not known), the side of her face it is on, and what it shows.
   */
  z.object({
    type: z.literal("bubble"),
    id: z.string(),
    x: z.number(),
    y: z.number(),
    width: z.number(),
    height: z.number(),
    face: RectSchema.nullable(),
    side: z.enum(["above", "right", "left", "below", "none"]),
    /** What it shows: her words or the app's note, the end of its text (its newest words), its commands. */
    kind: z.enum(["speech", "note"]).optional(),
    tail: z.string().optional(),
    commands: z.array(z.string()).optional(),
    /** Its text is scrolled to its end (the newest line in view). */
    end: z.boolean().optional(),
  }),
  /** The user closed the window. */
  z.object({ type: z.literal("closed"), id: z.string() }),
  /** An ordinary window (chat, settings, quick controls) got or lost the keyboard focus. */
  z.object({ type: z.literal("focus"), id: z.string(), focused: z.boolean() }),
  z.object({ type: z.literal("load-failed"), id: z.string(), uri: z.string(), message: z.string() }),
  z.object({ type: z.literal("error"), message: z.string() }),
  z.object({ type: z.literal("exit") }),
]);
export type ShellToHost = z.infer<typeof ShellToHostSchema>;

// Page ↔ shell inside a window (the script message handler `yui`, `window.__yuiShell(message)`): the page's
// contract too, so it lives with the page's in src/protocol/.
export type { Bubble, PageRect, PageToShell, ShellToPage } from "../src/protocol/shell.ts";

/** Parses one line of a shell's stdout; null for anything that is not a contract message (a log line). */
export function parseShellLine(line: string): ShellToHost | null {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return null;
  }
  const r = ShellToHostSchema.safeParse(raw);
  return r.success ? r.data : null;
}

/** One host → shell line. */
export const shellLine = (m: HostToShell): string => `${JSON.stringify(m)}\n`;
