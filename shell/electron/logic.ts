/**
 * The Electron shell's decisions, without Electron (docs/electron.md): each message from the host, from a
 * page or from the pointer is turned into a list of effects (`Action`) over plain state, which main.ts
 * applies to BrowserWindows, the tray and the host's stdout. Everything here runs under Node in the tests;
 * nothing here imports `electron`.
 */
import type {
  HostToShell,
  MENU_ACTIONS,
  Monitor,
  OpenWindow,
  PageToShell,
  Rect,
  ShellToHost,
  ShellToPage,
} from "../contract.ts";
import { cleanRects, inRects, type PageRect, placeOnVisible } from "../geometry.js";

export type MenuAction = (typeof MENU_ACTIONS)[number];
/** `[x, y, width, height]` in window (CSS) pixels, as the page sends them. */
export type { PageRect } from "../geometry.js";

/** One window the shell holds. */
export interface WindowState {
  /** An ordinary window (chat, settings, quick controls): framed, opaque, in the taskbar, not above. */
  ordinary: boolean;
  transparent: boolean;
  /** Clicks pass through everywhere but `shape` (off: the whole window takes input). */
  clickThrough: boolean;
  /** What takes clicks (her silhouette, the bubble, the input) and where a press and move drags her. */
  shape: PageRect[];
  drag: PageRect[];
  /** Whether the window takes mouse input now (`setIgnoreMouseEvents(false)`), else it forwards moves only. */
  takesInput: boolean;
  /** The pointer in window pixels while it is over the window; null outside. */
  pointer: { x: number; y: number } | null;
  /** A press on her drag area: the cursor (screen) and the window's place at that moment. */
  press: { cursorX: number; cursorY: number; winX: number; winY: number } | null;
  /** The user is dragging her (the press moved by DRAG_SLOP or more). */
  dragging: { cursorX: number; cursorY: number; winX: number; winY: number } | null;
  visible: boolean;
}

export interface ShellState {
  /** Transparency is available: always on macOS and Windows (the window server / DWM composites). */
  compositor: boolean;
  wayland: boolean;
  monitors: Monitor[];
  windows: Map<string, WindowState>;
}

export const SHELL_NAME = "electron";

/** A press followed by a move of this many pixels (|dx| + |dy|) drags her; less stays a click. */
export const DRAG_SLOP = 5;

/** One entry of a menu: what it sends and what it says; null is a separator. */
export type MenuEntry = { action: MenuAction; label: string } | null;

/** The effects main.ts applies, in order. */
export type Action =
  /** A new BrowserWindow; `x`/`y` already kept on a visible monitor. */
  | {
      do: "create";
      id: string;
      title: string;
      url: string;
      width: number;
      height: number;
      x?: number;
      y?: number;
      ordinary: boolean;
      transparent: boolean;
    }
  /** `open` of a window already open: retitle it and bring it forward. */
  | { do: "raise"; id: string; title: string }
  /** Close it without a `closed` message (the host asked). */
  | { do: "destroy"; id: string }
  | { do: "position"; id: string; x: number; y: number }
  | { do: "title"; id: string; title: string }
  /** `setIgnoreMouseEvents(ignore, { forward: true })`. */
  | { do: "mouse"; id: string; ignore: boolean }
  /** Show it; with `focus` it also takes the keyboard (the global shortcut). */
  | { do: "show"; id: string; focus: boolean }
  | { do: "hide"; id: string }
  /** `window.__yuiShell(message)` in the page. */
  | { do: "page"; id: string; message: ShellToPage }
  /** A line on stdout. */
  | { do: "host"; message: ShellToHost }
  /** A `geometry`-shaped message about the window as it is now (main.ts reads its bounds). */
  | { do: "report"; id: string; kind: "mapped" | "geometry" | "drag-end" }
  /** The page must not take the coming button release as a click on her (she was dragged, not clicked). */
  | { do: "swallow-click"; id: string }
  /** Pops up her menu at the pointer. */
  | { do: "menu"; id: string; entries: MenuEntry[] }
  /** The tray's menu changed (its click-through entry). */
  | { do: "tray"; entries: MenuEntry[] }
  /** A PNG of a screen rectangle (DIP), answered with a `capture` message. */
  | { do: "capture"; req: number; rect: Rect }
  | { do: "quit" }
  | { do: "log"; text: string };

export function newState(
  opts: { compositor?: boolean; wayland?: boolean; monitors?: Monitor[] } = {},
): ShellState {
  return {
    compositor: opts.compositor ?? true,
    wayland: opts.wayland ?? false,
    monitors: opts.monitors ?? [],
    windows: new Map(),
  };
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

// ---- menus ----

/** Her menu (a right-click on her): the same entries as the Linux shell's. */
export function herMenu(state: ShellState, w: WindowState): MenuEntry[] {
  return [
    { action: "chat", label: "Chat" },
    { action: "settings", label: "Settings" },
    { action: "quick", label: "Quick controls" },
    null,
    { action: "reset-position", label: "Reset position" },
    ...(state.compositor
      ? [
          {
            action: "click-through" as const,
            label: w.clickThrough ? "Turn click-through off" : "Turn click-through on",
          },
        ]
      : []),
    null,
    { action: "quit", label: "Quit YUI" },
  ];
}

/** The tray's menu; its click-through entry says what it will do: off while any character window has it on. */
export function trayMenu(state: ShellState): MenuEntry[] {
  const on = [...state.windows.values()].some((w) => !w.ordinary && w.clickThrough);
  return [
    { action: "chat", label: "Chat" },
    { action: "settings", label: "Settings" },
    { action: "quick", label: "Quick controls" },
    null,
    { action: "hide", label: "Hide characters" },
    { action: "show", label: "Show characters" },
    { action: "reset-position", label: "Reset positions" },
    ...(state.compositor
      ? [{ action: "click-through" as const, label: on ? "Turn click-through off" : "Turn click-through on" }]
      : []),
    null,
    { action: "quit", label: "Quit YUI" },
  ];
}

// ---- the host's messages ----

export function shellState(state: ShellState): ShellToPage {
  return { type: "shell", shell: SHELL_NAME, compositor: state.compositor, wayland: state.wayland };
}

/** The input shape in force: the mouse mode the pointer asks for now, and how many rectangles take clicks. */
function applyShape(id: string, w: WindowState): Action[] {
  const rects = w.clickThrough ? w.shape.length : 1;
  return [...hitTest(id, w), { do: "host", message: { type: "shape", id, rects } }];
}

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

function open(state: ShellState, m: OpenWindow): Action[] {
  if (state.windows.has(m.id)) return [{ do: "raise", id: m.id, title: m.title }];
  const ordinary = Boolean(m.frame);
  const transparent = !ordinary && state.compositor;
  const w: WindowState = {
    ordinary,
    transparent,
    clickThrough: transparent,
    shape: [],
    drag: [],
    // A transparent window never eats a click until the page reports her silhouette.
    takesInput: true,
    pointer: null,
    press: null,
    dragging: null,
    visible: true,
  };
  state.windows.set(m.id, w);
  const sep = m.url.includes("?") ? "&" : "?";
  const create: Action = {
    do: "create",
    id: m.id,
    title: m.title,
    url: transparent ? m.url : `${m.url}${sep}opaque=1`,
    width: m.width,
    height: m.height,
    ordinary,
    transparent,
  };
  if (m.x !== undefined && m.y !== undefined) {
    const p = placeOnVisible({ x: m.x, y: m.y, width: m.width, height: m.height }, state.monitors);
    create.x = p.x;
    create.y = p.y;
  }
  return [create, ...applyShape(m.id, w), { do: "tray", entries: trayMenu(state) }];
}

/**
 * Every host → shell message type, each with what it does here; `satisfies` makes tsc reject a contract
 * type missing from this list (and one that is not in the contract).
 */
export const HOST_MESSAGES = {
  open: "opens a window, or raises the one already open",
  close: "closes it without a closed message",
  move: "moves it",
  title: "retitles it",
  "click-through": "sets whether only her shape takes clicks",
  input: "shows and focuses her window and opens her input",
  visible: "hides or shows a window",
  capture: "answers a PNG of a screen rectangle",
  quit: "closes everything and exits",
} as const satisfies Record<HostToShell["type"], string>;

/** What a host → shell message does. Unknown windows are ignored, as the Linux shell does. */
export function onHost(state: ShellState, m: HostToShell): Action[] {
  switch (m.type) {
    case "open":
      return open(state, m);
    case "close": {
      if (!state.windows.delete(m.id)) return [];
      return [
        { do: "destroy", id: m.id },
        { do: "tray", entries: trayMenu(state) },
      ];
    }
    case "move":
      return state.windows.has(m.id) ? [{ do: "position", id: m.id, x: m.x, y: m.y }] : [];
    case "title":
      return state.windows.has(m.id) ? [{ do: "title", id: m.id, title: m.title }] : [];
    case "click-through": {
      const w = state.windows.get(m.id);
      if (!w || w.ordinary) return [];
      w.clickThrough = Boolean(m.enabled) && state.compositor;
      return [...applyShape(m.id, w), { do: "tray", entries: trayMenu(state) }];
    }
    case "input": {
      const w = state.windows.get(m.id);
      if (!w) return [];
      w.visible = true;
      return [
        { do: "show", id: m.id, focus: true },
        { do: "page", id: m.id, message: { type: "open-input" } },
      ];
    }
    case "visible": {
      const w = state.windows.get(m.id);
      if (!w) return [];
      w.visible = Boolean(m.visible);
      return [w.visible ? { do: "show", id: m.id, focus: false } : { do: "hide", id: m.id }];
    }
    case "capture":
      return [{ do: "capture", req: m.req, rect: { x: m.x, y: m.y, width: m.width, height: m.height } }];
    case "quit":
      return [{ do: "quit" }];
    default: {
      const unknown: never = m;
      return [{ do: "log", text: `unknown message ${(unknown as { type?: unknown }).type}` }];
    }
  }
}

/** One stdin line: a host message, or a log line for anything else. */
export function onHostLine(state: ShellState, line: string): Action[] {
  let m: unknown;
  try {
    m = JSON.parse(line);
  } catch {
    return [{ do: "log", text: `not JSON: ${line.slice(0, 80)}` }];
  }
  const type = (m as { type?: unknown } | null)?.type;
  if (typeof type !== "string" || !Object.hasOwn(HOST_MESSAGES, type))
    return [{ do: "log", text: `unknown message ${String(type)}` }];
  return onHost(state, m as HostToShell);
}

// ---- the page's messages ----

/** What a page's `postMessage(json)` does (`hello`, `shape`); anything else is ignored. */
export function onPage(state: ShellState, id: string, raw: unknown): Action[] {
  let m: Partial<PageToShell> | null;
  try {
    m = typeof raw === "string" ? JSON.parse(raw) : null;
  } catch {
    return [];
  }
  const w = state.windows.get(id);
  if (!w || !m || typeof m !== "object") return [];
  if (m.type === "hello") return [{ do: "page", id, message: shellState(state) }];
  if (m.type === "shape") {
    w.shape = cleanRects((m as { rects?: unknown }).rects);
    w.drag = cleanRects((m as { drag?: unknown }).drag);
    return applyShape(id, w);
  }
  return [];
}

/** The page finished loading: it learns which shell it is in (as on Linux). */
export function onLoaded(state: ShellState, id: string): Action[] {
  return state.windows.has(id) ? [{ do: "page", id, message: shellState(state) }] : [];
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
      if (!w.ordinary && (e.button ?? 0) === 0 && inRects(w.drag, e.x, e.y))
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
      if (p && Math.abs(e.cursor.x - p.cursorX) + Math.abs(e.cursor.y - p.cursorY) >= DRAG_SLOP) {
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

/** A right-click at (x, y): her menu on her (anywhere while click-through is off); none in ordinary windows. */
export function onContextMenu(state: ShellState, id: string, x: number, y: number): Action[] {
  const w = state.windows.get(id);
  if (!w || w.ordinary) return [];
  if (w.clickThrough && !inRects(w.drag, x, y)) return [];
  return [{ do: "menu", id, entries: herMenu(state, w) }];
}

/** The user closed a window (not the host): forget it and tell the host. */
export function onUserClosed(state: ShellState, id: string): Action[] {
  if (!state.windows.delete(id)) return [];
  return [
    { do: "host", message: { type: "closed", id } },
    { do: "tray", entries: trayMenu(state) },
  ];
}

/**
 * The monitors changed: the host hears the new list, and each window whose centre is on no work area any
 * more moves whole into the primary monitor's (`bounds`: each window's place now).
 */
export function onMonitors(
  state: ShellState,
  monitors: Monitor[],
  bounds: ReadonlyMap<string, Rect>,
): Action[] {
  state.monitors = monitors;
  const out: Action[] = [{ do: "host", message: { type: "monitors", monitors } }];
  for (const [id, r] of bounds) {
    if (!state.windows.has(id)) continue;
    const p = placeOnVisible(r, monitors);
    if (p.x !== r.x || p.y !== r.y) {
      out.push({ do: "position", id, x: p.x, y: p.y });
      out.push({ do: "log", text: `window ${id} moved onto a visible monitor (${p.x}, ${p.y})` });
    }
  }
  return out;
}

/** The first line: which shell, transparency, the tray, the shortcut (GTK syntax, as the contract says). */
export function readyMessage(state: ShellState, tray: boolean, shortcut: string | null): ShellToHost {
  return {
    type: "ready",
    shell: SHELL_NAME,
    compositor: state.compositor,
    wayland: state.wayland,
    tray,
    shortcut,
    monitors: state.monitors,
  };
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
