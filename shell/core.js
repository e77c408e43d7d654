// @ts-check
// The desktop shells' core (docs/desktop.md "The shell core"): what the Linux shell (gtk/main.js, run by gjs,
// which cannot load TypeScript) and the Electron shell (electron/logic.ts, bundled by esbuild) share, written
// once in plain JavaScript and type-checked against the contract (shell/contract.ts) through JSDoc: the menus,
// the host's messages, the page's messages, the monitors and the drag threshold. Each entry point turns one
// message or event into a list of effects (CoreAction) over plain state; each shell applies them to its own
// windows. Nothing here touches a window, GTK or Electron.
import { faceOnScreen, placeBubble } from "./bubble-place.js";
import { cleanRects, inRects, placeOnVisible } from "./geometry.js";

/** @typedef {import("./contract.ts").HostToShell} HostToShell */
/** @typedef {import("./contract.ts").ShellToHost} ShellToHost */
/** @typedef {import("./contract.ts").ShellToPage} ShellToPage */
/** @typedef {import("./contract.ts").PageRect} PageRect */
/** @typedef {import("./contract.ts").Monitor} Monitor */
/** @typedef {import("./contract.ts").Rect} Rect */
/** @typedef {import("./contract.ts").OpenWindow} OpenWindow */
/** @typedef {(typeof import("./contract.ts").MENU_ACTIONS)[number]} MenuAction */
/** @typedef {import("./contract.ts").Bubble} Bubble */

/**
 * Her bubble, as the core keeps it for her window (docs/desktop.md "Her bubble"): what it shows, her face's box
 * in her window, the size the bubble's page wants, her window's place, and where the bubble is now.
 * @typedef {object} BubbleState
 * @property {Bubble | null} content
 * @property {PageRect | null} face
 * @property {{ width: number, height: number } | null} size
 * @property {Rect | null} her
 * @property {boolean} end Its text is scrolled to its end (the bubble's page says).
 * @property {string} placed The last placement sent ("" while hidden).
 * @property {string} reported What the host last heard it shows.
 */

/**
 * One window a shell holds, as the core sees it; a shell may keep more per window (newState's `newWindow`).
 * @typedef {object} CoreWindow
 * @property {boolean} ordinary An ordinary window (chat, settings, quick controls): framed, opaque, in the taskbar, not above.
 * @property {boolean} transparent
 * @property {boolean} clickThrough Clicks pass through everywhere but `shape` (off: the whole window takes input).
 * @property {PageRect[]} shape What takes clicks (her silhouette, the bubble, the input).
 * @property {PageRect[]} drag Where a press and move drags her.
 * @property {boolean} visible
 */

/**
 * @template {CoreWindow} W
 * @typedef {object} CoreState
 * @property {string} shell The shell's name in `ready` and `shell` messages ("gtk", "electron").
 * @property {boolean} compositor Transparency is available.
 * @property {boolean} wayland
 * @property {Monitor[]} monitors
 * @property {boolean} handsFree Hands-free listening is on (the store's `yui.listen`, told by the host): the menus' entry says so.
 * @property {Map<string, W>} windows
 * @property {(base: CoreWindow) => W} newWindow A new window's state, with what the shell keeps besides.
 * @property {string} bubbleUrl The document of a bubble's window (the shell's own file, shell/bubble/).
 * @property {Map<string, BubbleState>} bubbles Her bubble by her window's id.
 * @property {boolean | null} tray A tray shows YUI's icon (null: not known yet; onTray).
 * @property {string | null} warning The app's lasting sign (the host's `status`), on the tray.
 */

/** @typedef {{ action: MenuAction, label: string } | null} MenuEntry One entry of a menu; null is a separator. */

/**
 * The effects a shell applies, in order.
 * @typedef {(
 *   | { do: "create", id: string, title: string, url: string, width: number, height: number, x?: number, y?: number, ordinary: boolean, transparent: boolean, bubble?: boolean }
 *   | { do: "place", id: string, x: number, y: number, width: number, height: number }
 *   | { do: "status", warning: string | null }
 *   | { do: "raise", id: string, title: string }
 *   | { do: "destroy", id: string }
 *   | { do: "position", id: string, x: number, y: number }
 *   | { do: "resize", id: string, width: number, height: number }
 *   | { do: "above", id: string, above: boolean }
 *   | { do: "title", id: string, title: string }
 *   | { do: "shape", id: string, rects: PageRect[] | null }
 *   | { do: "show", id: string, focus: boolean }
 *   | { do: "hide", id: string }
 *   | { do: "page", id: string, message: ShellToPage }
 *   | { do: "host", message: ShellToHost }
 *   | { do: "menu", id: string, entries: MenuEntry[] }
 *   | { do: "tray", entries: MenuEntry[] }
 *   | { do: "capture", req: number, rect: Rect }
 *   | { do: "quit" }
 *   | { do: "log", text: string }
 * )} CoreAction
 * `create`: a new window, `x`/`y` already kept on a visible monitor. `raise`: an `open` of a window already
 * open (retitle it, bring it forward). `destroy`: close it without a `closed` message (the host asked).
 * `shape`: the input shape now in force (null: the whole window takes input). `show` with `focus` also gives
 * it the keyboard (the global shortcut). `create` with `bubble`: her bubble's window (transparent, above, never
 * focused, shown by a later `show`). `place`: exact bounds (her bubble). `status`: the tray's sign. `page`: a message to the page (pageScript). `host`: a line on
 * stdout. `menu`: her menu at the pointer. `tray`: the tray's menu changed. `capture`: a PNG of a screen
 * rectangle, answered with a `capture` message. `resize`: a new size with the window's bottom-centre kept where it
 * is. `above`: kept above the other windows or not.
 */

/** A press followed by a move of this many pixels (|dx| + |dy|) drags her; less stays a click. */
export const DRAG_SLOP = 5;

/** The global shortcut that opens main's input, in GTK syntax, unless YUI_SHORTCUT names another. */
export const DEFAULT_SHORTCUT = "<Ctrl><Alt>y";

/**
 * The shortcut to bind: YUI_SHORTCUT's value when set, else DEFAULT_SHORTCUT.
 * @param {string | null | undefined} env
 */
export const shortcutFrom = (env) => env || DEFAULT_SHORTCUT;

/** The page's function the shell calls (src/protocol/shell.ts PAGE_RECEIVER). */
export const PAGE_RECEIVER = "__yuiShell";

/**
 * A new shell's state.
 * @template {CoreWindow} W
 * @param {{ shell: string, compositor?: boolean, wayland?: boolean, monitors?: Monitor[], bubbleUrl?: string, newWindow: (base: CoreWindow) => W }} opts
 * @returns {CoreState<W>}
 */
export function newState(opts) {
  return {
    shell: opts.shell,
    compositor: opts.compositor ?? true,
    wayland: opts.wayland ?? false,
    monitors: opts.monitors ?? [],
    handsFree: false,
    windows: new Map(),
    newWindow: opts.newWindow,
    bubbleUrl: opts.bubbleUrl ?? "",
    bubbles: new Map(),
    tray: null,
    warning: null,
  };
}

// ---- the menus: one table ----

/** The click-through entry's word: what choosing it will do. */
const toggle = (/** @type {boolean} */ on) => (on ? "Turn click-through off" : "Turn click-through on");
/** The hands-free entry's word: what choosing it will do (docs/voice.md#listening). */
const listening = (/** @type {boolean} */ on) => (on ? "Stop listening (hands-free)" : "Listen hands-free");

/**
 * Both menus, written once: each action with its label in her menu (a right-click on her) and in the tray's
 * (null: not offered there); null rows are separators. `click-through` is offered only with a compositor,
 * labelled by toggle(); `hands-free` in both, labelled by listening(); `hide` only in the tray (a character hidden from her own menu would have no way back).
 * @type {readonly ({ action: MenuAction, her: string | null, tray: string | null } | null)[]}
 */
export const MENU = [
  { action: "chat", her: "Chat", tray: "Chat" },
  { action: "settings", her: "Settings", tray: "Settings" },
  { action: "quick", her: "Quick controls", tray: "Quick controls" },
  { action: "hands-free", her: "", tray: "" },
  null,
  { action: "hide", her: null, tray: "Hide characters" },
  { action: "show", her: null, tray: "Show characters" },
  { action: "reset-position", her: "Reset position", tray: "Reset positions" },
  null,
  { action: "size-small", her: "Size: small", tray: null },
  { action: "size-medium", her: "Size: medium", tray: null },
  { action: "size-large", her: "Size: large", tray: null },
  { action: "size-full", her: "Size: full", tray: null },
  null,
  { action: "click-through", her: "", tray: "" },
  null,
  { action: "quit", her: "Quit YUI", tray: "Quit YUI" },
];

/**
 * One menu from the table: `which` column, the click-through entry saying `clickThrough`'s toggle, the
 * hands-free entry `handsFree`'s.
 * @param {"her" | "tray"} which
 * @param {boolean} compositor
 * @param {boolean} clickThrough
 * @param {boolean} [handsFree]
 * @returns {MenuEntry[]}
 */
export function menuOf(which, compositor, clickThrough, handsFree = false) {
  /** @type {MenuEntry[]} */
  const out = [];
  for (const row of MENU) {
    // A separator after another (the rows between them not offered in this menu) is left out.
    if (row === null) {
      if (out.length > 0 && out[out.length - 1] !== null) out.push(null);
    } else if (row.action === "click-through") {
      if (compositor) out.push({ action: row.action, label: toggle(clickThrough) });
    } else if (row.action === "hands-free") {
      out.push({ action: row.action, label: listening(handsFree) });
    } else {
      const label = row[which];
      if (label !== null) out.push({ action: row.action, label });
    }
  }
  return out;
}

/**
 * Her menu: its click-through entry says what it will do for her window.
 * @param {CoreState<CoreWindow>} state
 * @param {CoreWindow} w
 */
export const herMenu = (state, w) => menuOf("her", state.compositor, w.clickThrough, state.handsFree);

/**
 * The tray's menu; its click-through entry is off while any character window has it on. While the app has a
 * lasting sign (no backend answers), it comes first, leading to Settings.
 * @param {CoreState<CoreWindow>} state
 * @returns {MenuEntry[]}
 */
export const trayMenu = (state) => [
  ...(state.warning
    ? [{ action: /** @type {MenuAction} */ ("settings"), label: `${state.warning}: open Settings` }, null]
    : []),
  ...menuOf(
    "tray",
    state.compositor,
    [...state.windows.values()].some((w) => !w.ordinary && w.clickThrough),
    state.handsFree,
  ),
];

// ---- the page ----

/**
 * What the shell says to a page: which shell it is, and whether its window is transparent.
 * @param {CoreState<CoreWindow>} state
 * @returns {ShellToPage}
 */
export function shellState(state) {
  return {
    type: "shell",
    shell: state.shell,
    compositor: state.compositor,
    wayland: state.wayland,
    bubbles: Boolean(state.bubbleUrl),
    ...(state.tray === null ? {} : { tray: state.tray }),
  };
}

/**
 * The shell found whether a tray shows YUI's icon (a StatusNotifier host or a system tray): every page hears
 * it (without one, main says how to reach her menu).
 * @param {CoreState<CoreWindow>} state
 * @param {boolean} shown
 * @returns {CoreAction[]}
 */
export function onTray(state, shown) {
  state.tray = shown;
  return [...state.windows.keys()]
    .filter((id) => ownerOf(id) === null && !state.windows.get(id)?.ordinary)
    .map((id) => /** @type {CoreAction} */ ({ do: "page", id, message: shellState(state) }));
}

/**
 * The script a shell runs in a page to hand it `message` (`run_javascript`, `executeJavaScript`); nothing
 * happens in a page that is not listening yet (it says `hello` when it is).
 * @param {ShellToPage} message
 */
export function pageScript(message) {
  return `window.${PAGE_RECEIVER} && window.${PAGE_RECEIVER}(${JSON.stringify(message)})`;
}

/**
 * Every page → shell message type (src/protocol/shell.ts PageToShell), each with what it does; a new page
 * message is one entry. Rectangles from the page are cleaned (geometry.js cleanRects): it is not trusted.
 * @type {{ [K in import("./contract.ts").PageToShell["type"]]: (state: CoreState<CoreWindow>, id: string, w: CoreWindow, m: Record<string, unknown>) => CoreAction[] }}
 */
export const PAGE_MESSAGES = {
  hello: (state, id) => {
    const b = state.bubbles.get(ownerOf(id) ?? "");
    // The bubble's page, (re)loaded: what it shows now.
    if (ownerOf(id) !== null)
      return b?.content ? [{ do: "page", id, message: { type: "bubble-show", bubble: b.content } }] : [];
    return [{ do: "page", id, message: shellState(state) }];
  },
  shape: (_state, id, w, m) => {
    if (ownerOf(id) !== null) return [];
    w.shape = cleanRects(m.rects);
    w.drag = cleanRects(m.drag);
    return shapeActions(id, w);
  },
  bubble: (state, id, w, m) => (w.ordinary || ownerOf(id) !== null ? [] : onBubble(state, id, m.bubble)),
  face: (state, id, w, m) => {
    if (w.ordinary || ownerOf(id) !== null) return [];
    const b = bubbleState(state, id);
    b.face = cleanRects(m.rect === null ? [] : [m.rect])[0] ?? null;
    return placeActions(state, id);
  },
  "bubble-size": (state, id, _w, m) => {
    const owner = ownerOf(id);
    const width = Number(m.width);
    const height = Number(m.height);
    if (owner === null || !(width > 0 && height > 0 && width < 4096 && height < 65536)) return [];
    const b = bubbleState(state, owner);
    b.size = { width: Math.ceil(width), height: Math.ceil(height) };
    b.end = m.end !== false;
    return placeActions(state, owner);
  },
  "bubble-action": (_state, id, _w, m) => {
    const owner = ownerOf(id);
    if (owner === null) return [];
    if (m.action === "chat" || m.action === "settings")
      return [{ do: "host", message: { type: "menu", id: owner, action: m.action } }];
    if (m.action === "dismiss")
      return [{ do: "page", id: owner, message: { type: "bubble-action", action: "dismiss" } }];
    return [];
  },
};

// ---- her bubble (docs/desktop.md "Her bubble") ----

/** How much of the end of her bubble's text the host hears (its newest words). */
export const BUBBLE_TAIL = 120;

/** Her bubble's window's id: `bubble:<her window's id>`. */
export const BUBBLE_PREFIX = "bubble:";
/** @param {string} id */
export const bubbleIdOf = (id) => `${BUBBLE_PREFIX}${id}`;
/**
 * Whose bubble the window `id` is, or null when it is not a bubble's.
 * @param {string} id
 */
export const ownerOf = (id) => (id.startsWith(BUBBLE_PREFIX) ? id.slice(BUBBLE_PREFIX.length) : null);

/**
 * @param {CoreState<CoreWindow>} state
 * @param {string} id her window
 * @returns {BubbleState}
 */
function bubbleState(state, id) {
  let b = state.bubbles.get(id);
  if (!b) {
    b = { content: null, face: null, size: null, her: null, end: true, placed: "", reported: "" };
    state.bubbles.set(id, b);
  }
  return b;
}

/**
 * A bubble from a page (not trusted): its fields checked, its text and lists bounded; null for anything else.
 * @param {unknown} raw
 * @returns {Bubble | null}
 */
export function cleanBubble(raw) {
  if (!raw || typeof raw !== "object") return null;
  const r = /** @type {Record<string, unknown>} */ (raw);
  if ((r.kind !== "speech" && r.kind !== "note") || typeof r.text !== "string") return null;
  const strings = (/** @type {unknown} */ v) =>
    Array.isArray(v) ? v.filter((x) => typeof x === "string").map((x) => x.slice(0, 200)) : [];
  const actions = Array.isArray(r.actions)
    ? r.actions
        .filter(
          (a) =>
            a &&
            typeof a === "object" &&
            ["chat", "settings", "dismiss"].includes(a.action) &&
            typeof a.label === "string",
        )
        .map((a) => ({ action: a.action, label: String(a.label).slice(0, 60) }))
    : [];
  return {
    kind: r.kind,
    text: r.text.slice(0, 20_000),
    commands: strings(r.commands).slice(0, 4),
    actions: actions.slice(0, 3),
    streaming: Boolean(r.streaming),
    fading: Boolean(r.fading),
  };
}

/**
 * Her page says what her bubble shows (null: nothing): its window is made the first time, and handed the
 * content; nothing hides it.
 * @param {CoreState<CoreWindow>} state
 * @param {string} id her window
 * @param {unknown} raw
 * @returns {CoreAction[]}
 */
function onBubble(state, id, raw) {
  const b = bubbleState(state, id);
  b.content = cleanBubble(raw);
  if (!b.content) return hideBubble(state, id);
  const bid = bubbleIdOf(id);
  return [
    ...bubbleWindow(state, id),
    { do: "page", id: bid, message: { type: "bubble-show", bubble: b.content } },
    ...placeActions(state, id),
  ];
}

/**
 * Her bubble's window, hidden, unless it is there already (or the shell has no bubble document).
 * @param {CoreState<CoreWindow>} state
 * @param {string} id her window
 * @returns {CoreAction[]}
 */
function bubbleWindow(state, id) {
  const bid = bubbleIdOf(id);
  if (state.windows.has(bid) || !state.bubbleUrl) return [];
  const transparent = state.compositor;
  const w = state.newWindow({
    ordinary: false,
    transparent,
    clickThrough: transparent,
    shape: [],
    drag: [],
    visible: false,
  });
  state.windows.set(bid, w);
  return [
    {
      do: "create",
      id: bid,
      title: "YUI bubble",
      url: transparent ? state.bubbleUrl : `${state.bubbleUrl}?opaque=1`,
      width: 280,
      height: 60,
      ordinary: false,
      transparent,
      bubble: true,
    },
  ];
}

/**
 * Her bubble hidden (no content, her window hidden or gone): the host hears it (width 0).
 * @param {CoreState<CoreWindow>} state
 * @param {string} id her window
 * @returns {CoreAction[]}
 */
function hideBubble(state, id) {
  const b = state.bubbles.get(id);
  const w = state.windows.get(bubbleIdOf(id));
  if (!b || !w || !b.placed) return [];
  b.placed = "";
  w.visible = false;
  return [
    { do: "hide", id: bubbleIdOf(id) },
    {
      do: "host",
      message: { type: "bubble", id, x: 0, y: 0, width: 0, height: 0, face: null, side: "none" },
    },
  ];
}

/**
 * Her bubble placed for what it shows, its size, her face and her window's place now (placeBubble): moved,
 * sized and shown when that changed, the host told where; hidden while her window is.
 * @param {CoreState<CoreWindow>} state
 * @param {string} id her window
 * @returns {CoreAction[]}
 */
export function placeActions(state, id) {
  const b = state.bubbles.get(id);
  const bid = bubbleIdOf(id);
  const bw = state.windows.get(bid);
  const her = state.windows.get(id);
  if (!b || !bw || !her) return [];
  if (!b.content || !her.visible) return hideBubble(state, id);
  if (!b.size || !b.her) return [];
  const face = faceOnScreen(b.her, b.face);
  const p = placeBubble(face, b.size, state.monitors);
  const c = b.content;
  // What the host hears: where it is and what it shows (its newest words), whenever either changed.
  const shows = { kind: c.kind, tail: c.text.slice(-BUBBLE_TAIL), commands: c.commands, end: b.end };
  const at = JSON.stringify([p, face]);
  const report = JSON.stringify(shows);
  if (at === b.placed && report === b.reported) return [];
  const moved = at !== b.placed;
  b.placed = at;
  b.reported = report;
  bw.shape = [[0, 0, p.width, p.height]];
  /** @type {CoreAction[]} */
  const out = [];
  // Shown first, then placed: a window manager may place a window anew as it maps it.
  if (!bw.visible) {
    bw.visible = true;
    out.push({ do: "show", id: bid, focus: false });
  }
  if (moved)
    out.push(
      { do: "place", id: bid, x: p.x, y: p.y, width: p.width, height: p.height },
      { do: "shape", id: bid, rects: bw.clickThrough ? bw.shape : null },
    );
  out.push({
    do: "host",
    message: {
      type: "bubble",
      id,
      x: p.x,
      y: p.y,
      width: p.width,
      height: p.height,
      face,
      side: p.side,
      ...shows,
    },
  });
  return out;
}

/**
 * Her window's place now (a shell's move or configure event, every step of a walk): her bubble follows.
 * @param {CoreState<CoreWindow>} state
 * @param {string} id
 * @param {Rect} rect
 * @returns {CoreAction[]}
 */
export function onBounds(state, id, rect) {
  const w = state.windows.get(id);
  if (!w || w.ordinary || ownerOf(id) !== null) return [];
  bubbleState(state, id).her = { x: rect.x, y: rect.y, width: rect.width, height: rect.height };
  return placeActions(state, id);
}

/**
 * Her window is gone: so is her bubble's.
 * @param {CoreState<CoreWindow>} state
 * @param {string} id
 * @returns {CoreAction[]}
 */
function dropBubble(state, id) {
  state.bubbles.delete(id);
  return state.windows.delete(bubbleIdOf(id)) ? [{ do: "destroy", id: bubbleIdOf(id) }] : [];
}

/**
 * What a page's `postMessage(json)` does (PAGE_MESSAGES); anything else is ignored.
 * @param {CoreState<CoreWindow>} state
 * @param {string} id
 * @param {unknown} raw
 * @returns {CoreAction[]}
 */
export function onPage(state, id, raw) {
  /** @type {unknown} */
  let m;
  try {
    m = typeof raw === "string" ? JSON.parse(raw) : null;
  } catch {
    return [];
  }
  const w = state.windows.get(id);
  if (!w || !m || typeof m !== "object" || !("type" in m) || typeof m.type !== "string") return [];
  if (!Object.hasOwn(PAGE_MESSAGES, m.type)) return [];
  const run = PAGE_MESSAGES[/** @type {keyof typeof PAGE_MESSAGES} */ (m.type)];
  return run(state, id, w, /** @type {Record<string, unknown>} */ (m));
}

/**
 * The page finished loading: it learns which shell it is in.
 * @param {CoreState<CoreWindow>} state
 * @param {string} id
 * @returns {CoreAction[]}
 */
export function onLoaded(state, id) {
  return state.windows.has(id) ? [{ do: "page", id, message: shellState(state) }] : [];
}

/**
 * A compositor started or stopped: the host and every page hear it.
 * @param {CoreState<CoreWindow>} state
 * @param {boolean} compositor
 * @returns {CoreAction[]}
 */
export function onCompositor(state, compositor) {
  state.compositor = compositor;
  return [
    { do: "host", message: { type: "compositor", compositor } },
    ...[...state.windows.keys()].map(
      (id) => /** @type {CoreAction} */ ({ do: "page", id, message: shellState(state) }),
    ),
  ];
}

// ---- the host's messages ----

/**
 * The input shape in force, and the host told how many rectangles take clicks.
 * @param {string} id
 * @param {CoreWindow} w
 * @returns {CoreAction[]}
 */
export function shapeActions(id, w) {
  return [
    { do: "shape", id, rects: w.clickThrough ? w.shape : null },
    { do: "host", message: { type: "shape", id, rects: w.clickThrough ? w.shape.length : 1 } },
  ];
}

/**
 * @template {CoreWindow} W
 * @param {CoreState<W>} state
 * @param {OpenWindow} m
 * @returns {CoreAction[]}
 */
function open(state, m) {
  if (state.windows.has(m.id)) return [{ do: "raise", id: m.id, title: m.title }];
  const ordinary = Boolean(m.frame);
  const transparent = !ordinary && state.compositor;
  // A transparent window never eats a click until the page reports her silhouette.
  const w = state.newWindow({
    ordinary,
    transparent,
    clickThrough: transparent,
    shape: [],
    drag: [],
    visible: true,
  });
  state.windows.set(m.id, w);
  const sep = m.url.includes("?") ? "&" : "?";
  /** @type {Extract<CoreAction, { do: "create" }>} */
  const create = {
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
  return [
    create,
    ...shapeActions(m.id, w),
    // Her bubble's window is made with hers (hidden), so its page is ready when she first speaks.
    ...(ordinary ? [] : bubbleWindow(state, m.id)),
    { do: "tray", entries: trayMenu(state) },
  ];
}

/**
 * Every host → shell message type, each with what it does; the core's dispatch is this table. The type makes
 * tsc reject a contract type it lacks (and one that is not in the contract).
 * @type {{ [K in HostToShell["type"]]: { does: string, run: (state: CoreState<CoreWindow>, m: Extract<HostToShell, { type: K }>) => CoreAction[] } }}
 */
export const HOST_MESSAGES = {
  open: { does: "opens a window, or raises the one already open", run: open },
  close: {
    does: "closes it without a closed message",
    run: (state, m) =>
      state.windows.delete(m.id)
        ? [{ do: "destroy", id: m.id }, ...dropBubble(state, m.id), { do: "tray", entries: trayMenu(state) }]
        : [],
  },
  move: {
    does: "moves it",
    run: (state, m) => (state.windows.has(m.id) ? [{ do: "position", id: m.id, x: m.x, y: m.y }] : []),
  },
  resize: {
    does: "resizes it, its bottom-centre kept where it is",
    run: (state, m) =>
      state.windows.has(m.id) ? [{ do: "resize", id: m.id, width: m.width, height: m.height }] : [],
  },
  above: {
    does: "keeps it above the other windows, or not",
    run: (state, m) => {
      const w = state.windows.get(m.id);
      return w && !w.ordinary ? [{ do: "above", id: m.id, above: Boolean(m.above) }] : [];
    },
  },
  title: {
    does: "retitles it",
    run: (state, m) => (state.windows.has(m.id) ? [{ do: "title", id: m.id, title: m.title }] : []),
  },
  "click-through": {
    does: "sets whether only her shape takes clicks",
    run: (state, m) => {
      const w = state.windows.get(m.id);
      if (!w || w.ordinary) return [];
      w.clickThrough = Boolean(m.enabled) && state.compositor;
      return [...shapeActions(m.id, w), { do: "tray", entries: trayMenu(state) }];
    },
  },
  input: {
    does: "shows and focuses her window and opens her input",
    run: (state, m) => {
      const w = state.windows.get(m.id);
      if (!w) return [];
      w.visible = true;
      return [
        { do: "show", id: m.id, focus: true },
        { do: "page", id: m.id, message: { type: "open-input" } },
      ];
    },
  },
  talk: {
    does: "push-to-talk from the global hold key: pressed, shows her window with her input open; let go, sends",
    run: (state, m) => {
      const w = state.windows.get(m.id);
      if (!w) return [];
      if (!m.down) return [{ do: "page", id: m.id, message: { type: "talk", down: false } }];
      w.visible = true;
      return [
        { do: "show", id: m.id, focus: true },
        { do: "page", id: m.id, message: { type: "talk", down: true } },
      ];
    },
  },
  "hands-free": {
    does: "says whether hands-free listening is on: the menus' entry follows",
    run: (state, m) => {
      state.handsFree = Boolean(m.enabled);
      return [{ do: "tray", entries: trayMenu(state) }];
    },
  },
  visible: {
    does: "hides or shows a window",
    run: (state, m) => {
      const w = state.windows.get(m.id);
      if (!w) return [];
      w.visible = Boolean(m.visible);
      return [
        w.visible ? { do: "show", id: m.id, focus: false } : { do: "hide", id: m.id },
        ...placeActions(state, m.id),
      ];
    },
  },
  capture: {
    does: "answers a PNG of a screen rectangle",
    run: (_state, m) => [
      { do: "capture", req: m.req, rect: { x: m.x, y: m.y, width: m.width, height: m.height } },
    ],
  },
  quit: { does: "closes everything and exits", run: () => [{ do: "quit" }] },
  status: {
    does: "shows or clears the app's lasting sign on the tray",
    run: (state, m) => {
      state.warning = typeof m.warning === "string" && m.warning ? m.warning.slice(0, 80) : null;
      return [
        { do: "status", warning: state.warning },
        { do: "tray", entries: trayMenu(state) },
      ];
    },
  },
};

/**
 * What a host → shell message does. Unknown windows are ignored.
 * @param {CoreState<CoreWindow>} state
 * @param {HostToShell} m
 * @returns {CoreAction[]}
 */
export function onHost(state, m) {
  const entry = Object.hasOwn(HOST_MESSAGES, m.type) ? HOST_MESSAGES[m.type] : null;
  if (!entry) return [{ do: "log", text: `unknown message ${m.type}` }];
  // Each entry takes its own type; the table's type ties the two.
  return /** @type {(s: CoreState<CoreWindow>, m: HostToShell) => CoreAction[]} */ (entry.run)(state, m);
}

/**
 * One stdin line: a host message, or a log line for anything else.
 * @param {CoreState<CoreWindow>} state
 * @param {string} line
 * @returns {CoreAction[]}
 */
export function onHostLine(state, line) {
  /** @type {unknown} */
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    return [{ do: "log", text: `not JSON: ${line.slice(0, 80)}` }];
  }
  const type = m && typeof m === "object" && "type" in m ? m.type : undefined;
  if (typeof type !== "string" || !Object.hasOwn(HOST_MESSAGES, type))
    return [{ do: "log", text: `unknown message ${String(type)}` }];
  return onHost(state, /** @type {HostToShell} */ (m));
}

// ---- the user ----

/**
 * A right-click at (x, y) in window pixels: her menu on her (anywhere while click-through is off); none in
 * ordinary windows.
 * @param {CoreState<CoreWindow>} state
 * @param {string} id
 * @param {number} x
 * @param {number} y
 * @returns {CoreAction[]}
 */
export function onContextMenu(state, id, x, y) {
  const w = state.windows.get(id);
  if (!w || w.ordinary) return [];
  if (w.clickThrough && !inRects(w.drag, x, y)) return [];
  return [{ do: "menu", id, entries: herMenu(state, w) }];
}

/**
 * Whether a press of the main button at (x, y) in window pixels may start dragging her: on her drag area.
 * @param {CoreWindow} w
 * @param {boolean} mainButton
 * @param {number} x
 * @param {number} y
 */
export function pressOnHer(w, mainButton, x, y) {
  return !w.ordinary && mainButton && inRects(w.drag, x, y);
}

/**
 * Whether the pointer moved far enough from where the press was (screen pixels) for a drag.
 * @param {{ x: number, y: number }} from
 * @param {{ x: number, y: number }} to
 */
export function pastSlop(from, to) {
  return Math.abs(to.x - from.x) + Math.abs(to.y - from.y) >= DRAG_SLOP;
}

/**
 * The user closed a window (not the host): forget it and tell the host.
 * @param {CoreState<CoreWindow>} state
 * @param {string} id
 * @returns {CoreAction[]}
 */
export function onUserClosed(state, id) {
  if (!state.windows.delete(id)) return [];
  return [
    { do: "host", message: { type: "closed", id } },
    ...dropBubble(state, id),
    { do: "tray", entries: trayMenu(state) },
  ];
}

/**
 * An ordinary window (chat, settings, quick controls) got or lost the keyboard focus: the host decides whether
 * the characters make room for it.
 * @param {CoreState<CoreWindow>} state
 * @param {string} id
 * @param {boolean} focused
 * @returns {CoreAction[]}
 */
export function onFocus(state, id, focused) {
  const w = state.windows.get(id);
  return w?.ordinary ? [{ do: "host", message: { type: "focus", id, focused } }] : [];
}

// ---- the screen ----

/**
 * The monitors changed: the host hears the new list, and each window whose centre is on no work area any
 * more moves whole into the primary monitor's (`bounds`: each window's place now).
 * @param {CoreState<CoreWindow>} state
 * @param {Monitor[]} monitors
 * @param {ReadonlyMap<string, Rect>} bounds
 * @returns {CoreAction[]}
 */
export function onMonitors(state, monitors, bounds) {
  state.monitors = monitors;
  /** @type {CoreAction[]} */
  const out = [{ do: "host", message: { type: "monitors", monitors } }];
  for (const [id, r] of bounds) {
    // Her bubble follows her (placeActions), never the other way.
    if (!state.windows.has(id) || ownerOf(id) !== null) continue;
    const p = placeOnVisible(r, monitors);
    if (p.x !== r.x || p.y !== r.y) {
      out.push({ do: "position", id, x: p.x, y: p.y });
      out.push({ do: "log", text: `window ${id} moved onto a visible monitor (${p.x}, ${p.y})` });
    }
  }
  for (const id of state.bubbles.keys()) out.push(...placeActions(state, id));
  return out;
}

/**
 * The first line: which shell, transparency, the tray, the shortcut (GTK syntax), the monitors.
 * @param {CoreState<CoreWindow>} state
 * @param {boolean} tray
 * @param {string | null} shortcut
 * @returns {ShellToHost}
 */
export function readyMessage(state, tray, shortcut) {
  return {
    type: "ready",
    shell: state.shell,
    compositor: state.compositor,
    wayland: state.wayland,
    tray,
    shortcut,
    monitors: state.monitors,
  };
}
