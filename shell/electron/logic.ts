/**
 * The Electron shell's decisions, without Electron (docs/electron.md): each message from the host, from a
 * page or from the pointer is turned into a list of effects (`Action`) over plain state, which main.ts
 * applies to BrowserWindows, the tray and the host's stdout. Everything here runs under Node in the tests;
 * nothing here imports `electron`.
 */
import type { Monitor, Rect, ShellToHost } from "../contract.ts";
import {
  type CoreAction,
  type CoreState,
  type CoreWindow,
  herMenu as coreHerMenu,
  newState as coreNewState,
  onBounds as coreOnBounds,
  onContextMenu as coreOnContextMenu,
  onFocus as coreOnFocus,
  onHost as coreOnHost,
  onHostLine as coreOnHostLine,
  onLoaded as coreOnLoaded,
  onMonitors as coreOnMonitors,
  onPage as coreOnPage,
  onTray as coreOnTray,
  onUserClosed as coreOnUserClosed,
  readyMessage as coreReadyMessage,
  trayMenu as coreTrayMenu,
  DRAG_SLOP,
  HOST_MESSAGES,
  type MenuAction,
  type MenuEntry,
  pastSlop,
  pressOnHer,
  shellState,
} from "../core.js";
import { inRects } from "../geometry.js";

/** `[x, y, width, height]` in window (CSS) pixels, as the page sends them. */
export type { PageRect } from "../geometry.js";
export type { MenuAction, MenuEntry };
export { DRAG_SLOP, HOST_MESSAGES, shellState };

/** One window the Electron shell holds: the core's, and the pointer's state for hit-testing and dragging. */
export interface WindowState extends CoreWindow {
  /** Whether the window takes mouse input now (`setIgnoreMouseEvents(false)`), else it forwards moves only. */
  takesInput: boolean;
  /** The pointer in window pixels while it is over the window; null outside. */
  pointer: { x: number; y: number } | null;
  /** A press on her drag area: the cursor (screen) and the window's place at that moment. */
  press: { cursorX: number; cursorY: number; winX: number; winY: number } | null;
  /** The user is dragging her (the press moved by DRAG_SLOP or more). */
  dragging: { cursorX: number; cursorY: number; winX: number; winY: number } | null;
}

export type ShellState = CoreState<WindowState>;

export const SHELL_NAME = "electron";

/**
 * The effects main.ts applies, in order: the core's (shell/core.js), with its input shape turned into the
 * mouse mode (Electron has no input shape), and what the pointer adds.
 */
export type Action =
  | Exclude<CoreAction, { do: "shape" }>
  /** `setIgnoreMouseEvents(ignore, { forward: true })`. */
  | { do: "mouse"; id: string; ignore: boolean }
  /** A `geometry`-shaped message about the window as it is now (main.ts reads its bounds). */
  | { do: "report"; id: string; kind: "mapped" | "geometry" | "drag-end" }
  /** The page must not take the coming button release as a click on her (she was dragged, not clicked). */
  | { do: "swallow-click"; id: string };

export function newState(
  opts: { compositor?: boolean; wayland?: boolean; monitors?: Monitor[]; bubbleUrl?: string } = {},
): ShellState {
  return coreNewState({
    shell: SHELL_NAME,
    ...opts,
    // A transparent window never eats a click until the page reports her silhouette.
    newWindow: (base): WindowState => ({
      ...base,
      takesInput: true,
      pointer: null,
      press: null,
      dragging: null,
    }),
  });
}

/** The core's effects for Electron: an input shape becomes the mouse mode the pointer asks for now. */
function electron(state: ShellState, actions: CoreAction[]): Action[] {
  return actions.flatMap((a): Action[] => {
    if (a.do !== "shape") return [a];
    const w = state.windows.get(a.id);
    return w ? hitTest(a.id, w) : [];
  });
}

// ---- geometry (inRects, cleanRects, placeOnVisible: shell/geometry.js, shared with the Linux shell) ----

/** The index of the monitor a window overlaps most; -1 when it overlaps none. */
export function monitorIndexOf(rect: Rect, monitors: readonly Monitor[]): number {
  let best = -1;
  let bestArea = 0;
  for (const m of monitors) {
    const g = m.geometry;
    const w = Math.min(rect.x + rect.width, g.x + g.width) - Math.max(rect.x, g.x);
    const h = Math.min(rect.y + rect.height, g.y + g.height) - Math.max(rect.y, g.y);
    if (w > 0 && h > 0 && w * h > bestArea) {
      bestArea = w * h;
      best = m.index;
    }
  }
  return best;
}

/** What Electron's `screen` says about one display (the fields used). */
export interface DisplayInfo {
  id: number;
  label: string;
  bounds: Rect;
  workArea: Rect;
  scaleFactor: number;
}

/** The contract's monitors from Electron's displays (DIP: macOS points, Windows scaled pixels). */
export function monitorsFromDisplays(displays: readonly DisplayInfo[], primaryId: number): Monitor[] {
  const rect = (r: Rect): Rect => ({ x: r.x, y: r.y, width: r.width, height: r.height });
  return displays.map((d, index) => ({
    index,
    name: d.label || `monitor ${index}`,
    primary: d.id === primaryId,
    geometry: rect(d.bounds),
    workarea: rect(d.workArea),
  }));
}

/**
 * How to answer a `capture` of `rect` (DIP): the display holding the rectangle's centre (the nearest one
 * when none does), the part of the rectangle on it, and that part in the display's own pixels (its
 * thumbnail is taken at full resolution: bounds × scaleFactor). An error for an empty rectangle.
 */
export function capturePlan(
  displays: readonly DisplayInfo[],
  rect: Rect,
): { display: DisplayInfo; clip: Rect; pixels: Rect } | { error: string } {
  if (!(rect.width > 0 && rect.height > 0)) return { error: "empty rectangle" };
  if (!displays.length) return { error: "no display" };
  const cx = rect.x + rect.width / 2;
  const cy = rect.y + rect.height / 2;
  const dist = (d: DisplayInfo) => {
    const dx = Math.max(d.bounds.x - cx, 0, cx - (d.bounds.x + d.bounds.width));
    const dy = Math.max(d.bounds.y - cy, 0, cy - (d.bounds.y + d.bounds.height));
    return dx * dx + dy * dy;
  };
  const display = [...displays].sort((a, b) => dist(a) - dist(b))[0]!;
  const b = display.bounds;
  const x = Math.max(rect.x, b.x);
  const y = Math.max(rect.y, b.y);
  const right = Math.min(rect.x + rect.width, b.x + b.width);
  const bottom = Math.min(rect.y + rect.height, b.y + b.height);
  if (right <= x || bottom <= y) return { error: "the rectangle is on no display" };
  const clip = { x, y, width: right - x, height: bottom - y };
  const s = display.scaleFactor || 1;
  const pixels = {
    x: Math.round((x - b.x) * s),
    y: Math.round((y - b.y) * s),
    width: Math.round(clip.width * s),
    height: Math.round(clip.height * s),
  };
  return { display, clip, pixels };
}

// ---- the global shortcut ----

/**
 * A GTK accelerator (`<Ctrl><Alt>y`, the contract's syntax and YUI_SHORTCUT's) as an Electron accelerator
 * (`Control+Alt+Y`); null when it is not one. `<Primary>` is Command on macOS and Control elsewhere.
 */
export function electronAccelerator(gtk: string): string | null {
  const m = /^((?:<[A-Za-z0-9]+>)*)([^<>]+)$/.exec(gtk.trim());
  if (!m) return null;
  const mods: string[] = [];
  for (const [, name] of m[1]!.matchAll(/<([A-Za-z0-9]+)>/g)) {
    const mod = MODIFIERS[name!.toLowerCase()];
    if (!mod) return null;
    if (!mods.includes(mod)) mods.push(mod);
  }
  const key = keyName(m[2]!);
  if (!key || !mods.length) return null;
  return [...mods, key].join("+");
}

const MODIFIERS: Record<string, string> = {
  ctrl: "Control",
  control: "Control",
  primary: "CommandOrControl",
  alt: "Alt",
  mod1: "Alt",
  shift: "Shift",
  super: "Super",
  meta: "Super",
};

const KEYS: Record<string, string> = {
  space: "Space",
  return: "Enter",
  enter: "Enter",
  tab: "Tab",
  escape: "Escape",
  backspace: "Backspace",
  delete: "Delete",
  insert: "Insert",
  home: "Home",
  end: "End",
  page_up: "PageUp",
  page_down: "PageDown",
  up: "Up",
  down: "Down",
  left: "Left",
  right: "Right",
};

function keyName(k: string): string | null {
  if (/^[A-Za-z0-9]$/.test(k)) return k.toUpperCase();
  if (/^F([1-9]|1[0-9]|2[0-4])$/i.test(k)) return k.toUpperCase();
  return KEYS[k.toLowerCase()] ?? null;
}

// ---- the core's entry points, for Electron ----

/** Her menu (a right-click on her): the core's table. */
export const herMenu = (state: ShellState, w: WindowState): MenuEntry[] => coreHerMenu(state, w);
/** The tray's menu: the core's table. */
export const trayMenu = (state: ShellState): MenuEntry[] => coreTrayMenu(state);
/** What a host → shell message does. */
export const onHost = (state: ShellState, m: Parameters<typeof coreOnHost>[1]): Action[] =>
  electron(state, coreOnHost(state, m));
/** One stdin line: a host message, or a log line for anything else. */
export const onHostLine = (state: ShellState, line: string): Action[] =>
  electron(state, coreOnHostLine(state, line));
/** What a page's `postMessage(json)` does (`hello`, `shape`). */
export const onPage = (state: ShellState, id: string, raw: unknown): Action[] =>
  electron(state, coreOnPage(state, id, raw));
/** The page finished loading: it learns which shell it is in (as on Linux). */
export const onLoaded = (state: ShellState, id: string): Action[] => electron(state, coreOnLoaded(state, id));
/** A right-click at (x, y): her menu on her (anywhere while click-through is off). */
export const onContextMenu = (state: ShellState, id: string, x: number, y: number): Action[] =>
  electron(state, coreOnContextMenu(state, id, x, y));
/** The user closed a window (not the host): forget it and tell the host. */
export const onUserClosed = (state: ShellState, id: string): Action[] =>
  electron(state, coreOnUserClosed(state, id));
/** An ordinary window got or lost the focus: the host hears it (the characters make room for it). */
export const onFocus = (state: ShellState, id: string, focused: boolean): Action[] =>
  electron(state, coreOnFocus(state, id, focused));
/** The monitors changed: the host hears them, windows off every work area move back. */
export const onMonitors = (
  state: ShellState,
  monitors: Monitor[],
  bounds: ReadonlyMap<string, Rect>,
): Action[] => electron(state, coreOnMonitors(state, monitors, bounds));
/** Her window moved or was resized: her bubble follows (docs/desktop.md "Her bubble"). */
export const onBounds = (state: ShellState, id: string, rect: Rect): Action[] =>
  electron(state, coreOnBounds(state, id, rect));
/** Whether a tray shows the icon: every page hears it. */
export const onTray = (state: ShellState, shown: boolean): Action[] =>
  electron(state, coreOnTray(state, shown));
/** The first line: which shell, transparency, the tray, the shortcut (GTK syntax, as the contract says). */
export const readyMessage = (state: ShellState, tray: boolean, shortcut: string | null): ShellToHost =>
  coreReadyMessage(state, tray, shortcut);

/** Whether the window should take input now; an action only when that changes. */
function hitTest(id: string, w: WindowState): Action[] {
  const want =
    !w.clickThrough ||
    w.press !== null ||
    w.dragging !== null ||
    (w.pointer !== null && inRects(w.shape, w.pointer.x, w.pointer.y));
  if (want === w.takesInput) return [];
  w.takesInput = want;
  return [{ do: "mouse", id, ignore: !want }];
}

// ---- the pointer ----

/**
 * A pointer event from the page's preload: window pixels, plus what main.ts adds: the cursor's screen point
 * and the window's place (DIP).
 */
export interface PointerEvent {
  kind: "move" | "down" | "up" | "leave";
  x: number;
  y: number;
  /** 0 the main button. */
  button?: number;
  cursor: { x: number; y: number };
  win: { x: number; y: number };
}

/**
 * Hit-testing and dragging. While click-through is on, the window ignores the mouse but still receives its
 * moves (`forward: true`); over her shape it takes input, elsewhere it lets clicks through. A press on her
 * drag area followed by a move of DRAG_SLOP pixels drags her: the window follows the cursor until the
 * button is up (`drag`, then `drag-end`); a press without a move stays a click for the page.
 */
export function onPointer(state: ShellState, id: string, e: PointerEvent): Action[] {
  const w = state.windows.get(id);
  if (!w) return [];
  switch (e.kind) {
    case "leave":
      w.pointer = null;
      return hitTest(id, w);
    case "down":
      w.pointer = { x: e.x, y: e.y };
      if (pressOnHer(w, (e.button ?? 0) === 0, e.x, e.y))
        w.press = { cursorX: e.cursor.x, cursorY: e.cursor.y, winX: e.win.x, winY: e.win.y };
      return hitTest(id, w);
    case "move": {
      w.pointer = { x: e.x, y: e.y };
      const d = w.dragging;
      if (d)
        return [
          { do: "position", id, x: d.winX + e.cursor.x - d.cursorX, y: d.winY + e.cursor.y - d.cursorY },
        ];
      const p = w.press;
      if (p && pastSlop({ x: p.cursorX, y: p.cursorY }, e.cursor)) {
        w.press = null;
        w.dragging = p;
        return [
          { do: "host", message: { type: "drag", id } },
          { do: "swallow-click", id },
          { do: "position", id, x: p.winX + e.cursor.x - p.cursorX, y: p.winY + e.cursor.y - p.cursorY },
        ];
      }
      return hitTest(id, w);
    }
    case "up": {
      w.pointer = { x: e.x, y: e.y };
      const dragged = w.dragging !== null;
      w.press = null;
      w.dragging = null;
      return [...(dragged ? [{ do: "report", id, kind: "drag-end" } as const] : []), ...hitTest(id, w)];
    }
  }
}

/**
 * The cursor as main.ts polls it (window pixels, null when it is off the window): the same hit-test as a
 * forwarded move, for when Electron stops forwarding moves to a window (another of its windows has the
 * focus: electron/electron#27600 on macOS, #34353 on Windows). Never starts or moves a drag.
 */
export function onHover(state: ShellState, id: string, at: { x: number; y: number } | null): Action[] {
  const w = state.windows.get(id);
  if (!w || w.press || w.dragging) return [];
  w.pointer = at;
  return hitTest(id, w);
}

/** The windows whose cursor main.ts polls: those letting clicks through now. */
export function hoverWatched(state: ShellState): string[] {
  return [...state.windows].filter(([, w]) => w.clickThrough && w.visible).map(([id]) => id);
}

/**
 * The tray's icon: a filled disc of `bgr` on transparency, `size`×`size` BGRA pixels (as
 * `nativeImage.createFromBitmap` takes them), antialiased at its edge.
 */
export function trayIconBitmap(size = 16, bgr: readonly [number, number, number] = [0, 0, 0]): Uint8Array {
  const out = new Uint8Array(size * size * 4);
  const c = (size - 1) / 2;
  const r = size / 2 - 1;
  for (let y = 0; y < size; y++)
    for (let x = 0; x < size; x++) {
      const d = Math.hypot(x - c, y - c);
      const a = Math.max(0, Math.min(1, r - d + 0.5));
      out.set([...bgr, Math.round(a * 255)], (y * size + x) * 4);
    }
  return out;
}
