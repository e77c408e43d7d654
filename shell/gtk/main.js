// @ts-check
// YUI's Linux desktop shell: gjs + GTK 3 + WebKitGTK 4.1, started by the host (`yui desktop`) as
// `gjs -m shell/gtk/main.js`. It speaks the shell contract (shell/contract.ts, docs/desktop.md): JSON lines on
// stdin (host -> shell) and stdout (shell -> host). Each character is one window: transparent (RGBA visual),
// undecorated, above the others, off the taskbar and pager, WM_CLASS yui/YUI. The page inside talks to the
// shell through the `yui` script message handler; the shell answers with run_javascript. What to do with each
// message and event is the shells' core (shell/core.js, shared with the Electron shell); this file applies its
// effects to GTK windows. Type-checked against the contract with JSDoc (gi.d.ts: the GTK API it uses).

import Gdk from "gi://Gdk?version=3.0";
import Gio from "gi://Gio";
import GLib from "gi://GLib";
import Gtk from "gi://Gtk?version=3.0";
import WebKit2 from "gi://WebKit2?version=4.1";
import cairo from "cairo";
import System from "system";
import {
  newState,
  onBounds,
  onCompositor,
  onContextMenu,
  onFocus,
  onHostLine,
  onLoaded,
  onMonitors,
  onPage,
  onTray,
  onUserClosed,
  pageScript,
  pastSlop,
  pressOnHer,
  readyMessage,
  shapeActions,
  shortcutFrom,
  trayMenu,
} from "../core.js";

/** @typedef {import("../contract.ts").ShellToHost} ShellToHost */
/** @typedef {import("../contract.ts").ShellToPage} ShellToPage */
/** @typedef {import("../contract.ts").PageRect} PageRect */
/** @typedef {import("../contract.ts").Monitor} Monitor */
/** @typedef {import("../contract.ts").Rect} Rect */
/** @typedef {import("../core.js").CoreAction} CoreAction */
/** @typedef {import("../core.js").MenuEntry} MenuEntry */

Gtk.init(null);

// gjs collects its JavaScript heap when that heap grows, blind to the native memory its wrappers hold (the
// page's messages as JSC values, cairo regions, signal arguments): idle on the desktop, the shell's resident
// memory grew about 1.3 MB a minute, and stayed flat with a collection a minute (docs/benchmarks.md), which
// takes a few milliseconds on this small heap.
GLib.timeout_add_seconds(GLib.PRIORITY_LOW, 60, () => {
  System.gc();
  return GLib.SOURCE_CONTINUE;
});

// Her windows' transparent background (create() adds the class).
const css = new Gtk.CssProvider();
css.load_from_data(".yui-transparent { background-color: transparent; }");
Gtk.StyleContext.add_provider_for_screen(
  Gdk.Screen.get_default(),
  css,
  Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION,
);

// The tray icon: Ayatana AppIndicator (StatusNotifierItem where the desktop has a host for it, an XEmbed
// tray icon where it has a system tray), when its typelib is installed.
/** @type {typeof import("gi://AyatanaAppIndicator3?version=0.1").default | null} */
let AppIndicator = null;
try {
  AppIndicator = (await import("gi://AyatanaAppIndicator3?version=0.1")).default;
} catch {
  AppIndicator = null;
}
// The global shortcut: Keybinder (X11), when its typelib is installed.
/** @type {typeof import("gi://Keybinder?version=3.0").default | null} */
let Keybinder = null;
try {
  Keybinder = (await import("gi://Keybinder?version=3.0")).default;
} catch {
  Keybinder = null;
}

const stdout = new Gio.DataOutputStream({
  base_stream: new Gio.UnixOutputStream({ fd: 1, close_fd: false }),
});
/**
 * One message to the host: a JSON line on stdout.
 * @param {ShellToHost} msg
 */
function send(msg) {
  try {
    stdout.put_string(`${JSON.stringify(msg)}\n`, null);
    stdout.flush(null);
  } catch {
    // The host is gone; stdin's end quits us.
  }
}
const log = (/** @type {string} */ text) => printerr(`[shell] ${text}`);

const maybeDisplay = Gdk.Display.get_default();
if (!maybeDisplay) {
  printerr("[shell] no display: set DISPLAY (X11) or run under XWayland");
  send({ type: "error", message: "no display" });
  System.exit(1);
}
const display = /** @type {import("gi://Gdk?version=3.0").default.Display} */ (maybeDisplay);
const screen = display.get_default_screen();
const wayland = Boolean(GLib.getenv("WAYLAND_DISPLAY"));
const composited = () => Boolean(screen.is_composited() && screen.get_rgba_visual());

/** @returns {Monitor[]} */
function monitors() {
  const out = [];
  for (let i = 0; i < display.get_n_monitors(); i++) {
    const m = display.get_monitor(i);
    const g = m.get_geometry();
    const w = m.get_workarea();
    out.push({
      index: i,
      name: m.get_model() ?? `monitor ${i}`,
      primary: m.is_primary(),
      geometry: { x: g.x, y: g.y, width: g.width, height: g.height },
      workarea: { x: w.x, y: w.y, width: w.width, height: w.height },
    });
  }
  return out;
}

/** Her windows as both shells see them (the core's state); GTK keeps nothing more per window there. */
const state = newState({
  shell: "gtk",
  compositor: composited(),
  wayland,
  monitors: monitors(),
  // Her bubble's window shows the shell's own document (shell/bubble/), beside her head.
  bubbleUrl: GLib.Uri.resolve_relative(import.meta.url, "../bubble/bubble.html", GLib.UriFlags.NONE),
  newWindow: (w) => w,
});

/**
 * What GTK holds of one window: its widgets, a press that may become a drag, her menu while it is up.
 * @typedef {object} Widgets
 * @property {import("gi://Gtk?version=3.0").default.Window} win
 * @property {import("gi://WebKit2?version=4.1").default.WebView} view
 * @property {{ x: number, y: number, time: number } | null} press
 * @property {import("gi://Gtk?version=3.0").default.Menu | null} menu
 */
/** @type {Map<string, Widgets>} */
const widgets = new Map();

/**
 * Where a window is now, and on which monitor.
 * @param {Widgets} entry
 */
function geometry(entry) {
  const [x, y] = entry.win.get_position();
  const [width, height] = entry.win.get_size();
  const gw = entry.win.get_window();
  const mon = gw ? display.get_monitor_at_window(gw) : null;
  let index = -1;
  for (let i = 0; i < display.get_n_monitors(); i++) if (display.get_monitor(i) === mon) index = i;
  return { x, y, width, height, monitor: index };
}

/** The input shape each window was given last (by its GdkWindow: a window realized anew starts over). */
const shapes = new WeakMap();

/**
 * The input shape: only `rects` (her silhouette, the bubble, the input) take clicks, everything else passes
 * to the windows below; null: the whole window takes input. Set on the GdkWindow, so it must exist (after
 * realize); openbox keeps it across maps.
 * @param {string} id
 * @param {PageRect[] | null} rects
 */
function applyShape(id, rects) {
  const gw = widgets.get(id)?.win.get_window();
  if (!gw) return;
  // The same shape again changes nothing: no new cairo region (each one is native memory gjs's collector does
  // not see, and the shell grew with them, docs/benchmarks.md).
  const key = JSON.stringify(rects);
  if (shapes.get(gw) === key) return;
  shapes.set(gw, key);
  const region = new cairo.Region();
  for (const [x, y, width, height] of rects ?? [[0, 0, 32767, 32767]])
    region.unionRectangle({ x, y, width, height });
  gw.input_shape_combine_region(region, 0, 0);
}

/**
 * The window manager moves her while the user drags, and the button's release goes to it, not to us: the
 * pointer's button state is read until it is up, then the window's place once it settled.
 * @param {string} id
 * @param {Widgets} entry
 */
function watchDragEnd(id, entry) {
  const pointer = display.get_default_seat().get_pointer();
  const root = screen.get_root_window();
  GLib.timeout_add(GLib.PRIORITY_DEFAULT, 50, () => {
    if (widgets.get(id) !== entry) return GLib.SOURCE_REMOVE;
    const [, , , mask] = root.get_device_position(pointer);
    if (mask & Gdk.ModifierType.BUTTON1_MASK) return GLib.SOURCE_CONTINUE;
    GLib.timeout_add(GLib.PRIORITY_DEFAULT, 200, () => {
      if (widgets.get(id) === entry) send({ type: "drag-end", id, ...geometry(entry) });
      return GLib.SOURCE_REMOVE;
    });
    return GLib.SOURCE_REMOVE;
  });
}

/**
 * A PNG of a rectangle of the screen as it is shown (look at: screen), as base64.
 * @param {number} req
 * @param {Rect} r
 */
function capture(req, r) {
  try {
    const pixbuf = Gdk.pixbuf_get_from_window(screen.get_root_window(), r.x, r.y, r.width, r.height);
    if (!pixbuf) throw new Error("the screen could not be read");
    const [, bytes] = pixbuf.save_to_bufferv("png", [], []);
    send({ type: "capture", req, png: GLib.base64_encode(bytes) });
  } catch (e) {
    send({ type: "capture", req, error: /** @type {Error} */ (e).message });
  }
}

/**
 * A GTK menu of `entries`; choosing one tells the host (`id`: her window, or "" for the tray's).
 * @param {string} id
 * @param {MenuEntry[]} entries
 */
function gtkMenu(id, entries) {
  const menu = new Gtk.Menu();
  /** @type {Map<string, import("gi://Gtk?version=3.0").default.MenuItem>} */
  const items = new Map();
  for (const e of entries) {
    if (!e) {
      menu.append(new Gtk.SeparatorMenuItem());
      continue;
    }
    const { action, label } = e;
    const item = new Gtk.MenuItem({ label });
    item.connect("activate", () => send({ type: "menu", id, action }));
    menu.append(item);
    items.set(action, item);
  }
  menu.show_all();
  return { menu, items, rows: entries.map((e) => e?.action ?? "-").join() };
}

/**
 * Applies the core's effects to GTK windows, the tray and stdout; `ev` is the event a menu pops up at.
 * @param {CoreAction[]} actions
 * @param {import("gi://Gdk?version=3.0").default.Event} [ev]
 */
function apply(actions, ev) {
  for (const a of actions) {
    const e = "id" in a ? widgets.get(a.id) : undefined;
    switch (a.do) {
      case "create":
        create(a);
        break;
      case "raise":
        e?.win.set_title(a.title);
        e?.win.present();
        break;
      case "destroy":
        widgets.delete(a.id);
        e?.win.destroy();
        break;
      case "position":
        e?.win.move(a.x, a.y);
        break;
      case "place":
        if (e) place(e, a);
        break;
      case "status":
        setTraySign(a.warning);
        break;
      case "resize":
        if (e) resize(e, a.width, a.height);
        break;
      case "above":
        e?.win.set_keep_above(a.above);
        break;
      case "title":
        e?.win.set_title(a.title);
        break;
      case "shape":
        applyShape(a.id, a.rects);
        break;
      case "show":
        e?.win.show_all();
        // Her input, opened by the global shortcut: her window comes forward with the keyboard.
        if (a.focus)
          e?.win.present_with_time(Keybinder ? Keybinder.get_current_event_time() : Gdk.CURRENT_TIME);
        break;
      case "hide":
        e?.win.hide();
        break;
      case "page":
        e?.view.run_javascript(pageScript(a.message), null, null);
        break;
      case "host":
        send(a.message);
        break;
      case "menu":
        if (e && ev) popUp(a.id, e, a.entries, ev);
        break;
      case "tray":
        updateTray(a.entries);
        break;
      case "capture":
        capture(a.req, a.rect);
        break;
      case "quit":
        Gtk.main_quit();
        break;
      case "log":
        log(a.text);
        break;
    }
  }
}

// ---- the microphone (listening, docs/voice.md#listening) ----
/** The host's origin, from the host that started the shell; unset, no page gets the microphone. */
const HOST_ORIGIN = GLib.getenv("YUI_HOST_ORIGIN");

/**
 * `scheme://host:port` of a URI, or null.
 * @param {string | null} uri
 * @returns {string | null}
 */
function originOf(uri) {
  try {
    const u = GLib.Uri.parse(uri ?? "", GLib.UriFlags.NONE);
    const port = u.get_port();
    return `${u.get_scheme()}://${u.get_host()}${port > 0 ? `:${port}` : ""}`;
  } catch {
    return null;
  }
}

/**
 * Listening: getUserMedia for the microphone, granted to the host's own pages only (WebKit's permission
 * request); the camera, any other origin, and every page when the host's origin is unknown are refused.
 * `YUI_SHELL_MOCK_MIC=1` gives WebKit's mock capture devices (tests: Xvfb has no microphone).
 * @param {import("gi://WebKit2?version=4.1").default.WebView} view
 */
function grantMicrophone(view) {
  const settings = view.get_settings();
  settings.set_enable_media_stream(true);
  if (GLib.getenv("YUI_SHELL_MOCK_MIC")) settings.set_enable_mock_capture_devices(true);
  view.connect("permission-request", (_v, request) => {
    if (!(request instanceof WebKit2.UserMediaPermissionRequest)) return false;
    const page = originOf(view.get_uri());
    const ok =
      Boolean(HOST_ORIGIN) &&
      page === HOST_ORIGIN &&
      request.is_for_audio_device &&
      !request.is_for_video_device;
    if (ok) request.allow();
    else request.deny();
    log(`microphone ${ok ? "granted" : "refused"} to ${page}`);
    return true;
  });
}

/**
 * A new size for her window (her scale), its bottom-centre kept where it is; the page's stage follows the new size.
 * @param {Widgets} e
 * @param {number} width
 * @param {number} height
 */
function resize(e, width, height) {
  const [x, y] = e.win.get_position();
  const [w, h] = e.win.get_size();
  e.win.set_default_size(width, height);
  e.win.resize(width, height);
  e.win.move(Math.round(x + (w - width) / 2), y + h - height);
}

/**
 * Her bubble's exact bounds: GTK is told the size, the window itself is moved and sized at once (a move and a
 * resize through GtkWindow wait on each other and can leave it a few pixels off).
 * @param {Widgets} e
 * @param {{ x: number, y: number, width: number, height: number }} r
 */
function place(e, r) {
  e.win.resize(r.width, r.height);
  const gw = e.win.get_window();
  if (gw) gw.move_resize(r.x, r.y, r.width, r.height);
  else e.win.move(r.x, r.y);
}

/**
 * Her menu at the pointer.
 * @param {string} id
 * @param {Widgets} e
 * @param {MenuEntry[]} entries
 * @param {import("gi://Gdk?version=3.0").default.Event} ev
 */
function popUp(id, e, entries, ev) {
  const { menu } = gtkMenu(id, entries);
  menu.attach_to_widget(e.win, null);
  menu.popup_at_pointer(ev);
  e.menu = menu;
}

/**
 * A new window: an ordinary one (chat, settings, quick controls) framed, opaque, in the taskbar, not above;
 * hers transparent (with a compositor), undecorated, above, off the taskbar and pager.
 * @param {Extract<CoreAction, { do: "create" }>} a
 */
function create(a) {
  const win = new Gtk.Window({ type: Gtk.WindowType.TOPLEVEL, title: a.title });
  win.set_wmclass("yui", "YUI");
  win.set_default_size(a.width, a.height);
  if (!a.ordinary) {
    win.set_keep_above(true);
    win.set_skip_taskbar_hint(true);
    win.set_skip_pager_hint(true);
  }
  // Her bubble never takes the keyboard, and has no frame even without a compositor.
  if (a.bubble) {
    win.set_accept_focus(false);
    win.set_decorated(false);
  }
  if (a.transparent) {
    win.set_visual(screen.get_rgba_visual());
    win.set_app_paintable(true);
    win.set_decorated(false);
    // A transparent background from CSS, not a "draw" handler: the window is drawn with every frame of hers,
    // and a handler would run JavaScript (and leave a cairo wrapper for the collector) each time.
    win.get_style_context().add_class("yui-transparent");
  }
  const ucm = new WebKit2.UserContentManager();
  ucm.register_script_message_handler("yui");
  const view = new WebKit2.WebView({ user_content_manager: ucm });
  const settings = view.get_settings();
  settings.set_enable_webgl(true);
  settings.set_enable_developer_extras(Boolean(GLib.getenv("YUI_SHELL_DEVTOOLS")));
  // The page's console on the shell's stdout, where the host logs lines that are not contract messages.
  settings.set_enable_write_console_messages_to_stdout(Boolean(GLib.getenv("YUI_SHELL_DEBUG")));
  if (a.transparent) view.set_background_color(new Gdk.RGBA({ red: 0, green: 0, blue: 0, alpha: 0 }));
  if (!a.bubble) grantMicrophone(view);
  win.add(view);
  /** @type {Widgets} */
  const entry = { win, view, press: null, menu: null };
  widgets.set(a.id, entry);
  ucm.connect("script-message-received::yui", (_u, result) => {
    const v = result.get_js_value();
    const raw = v.is_string() ? v.to_string() : v.to_json(0);
    if (GLib.getenv("YUI_SHELL_DEBUG")) log(`page ${a.id}: ${raw.slice(0, 160)}`);
    apply(onPage(state, a.id, raw));
  });
  if (a.bubble) {
    keepToDocument(view, a.url);
    view.load_uri(a.url);
    win.realize();
    // Shown once the core placed it beside her head.
    return;
  }
  followPointer(a.id, entry, a.ordinary);
  followWindow(a.id, entry);
  keepToOrigin(view, a.url);
  view.load_uri(a.url);
  win.realize();
  // Empty input shape until the page reports her silhouette: a transparent window never eats a click.
  applyShape(a.id, a.transparent ? [] : null);
  if (a.x !== undefined && a.y !== undefined) win.move(a.x, a.y);
  win.show_all();
}

/**
 * Her menu and dragging her: a press on her silhouette followed by a move of a few pixels (the core's
 * threshold) hands the move to the window manager; a press without a move stays a click for the page (it
 * opens her input).
 * @param {string} id
 * @param {Widgets} entry
 * @param {boolean} ordinary
 */
function followPointer(id, entry, ordinary) {
  const { view, win } = entry;
  view.connect("button-press-event", (_v, ev) => {
    const [, button] = ev.get_button();
    const [, x, y] = ev.get_coords();
    const [, xr, yr] = ev.get_root_coords();
    // A right-click on her (anywhere while click-through is off) opens her menu: the user's way back.
    if (button === 3) {
      const menu = onContextMenu(state, id, x, y);
      if (menu.length) {
        apply(menu, ev);
        return true;
      }
    }
    const w = state.windows.get(id);
    entry.press = w && pressOnHer(w, button === 1, x, y) ? { x: xr, y: yr, time: ev.get_time() } : null;
    return false;
  });
  // WebKit's own context menu (reload, inspect) is not hers.
  view.connect("context-menu", () => !ordinary || !GLib.getenv("YUI_SHELL_DEVTOOLS"));
  view.connect("button-release-event", () => {
    entry.press = null;
    return false;
  });
  view.connect("motion-notify-event", (_v, ev) => {
    const p = entry.press;
    if (!p) return false;
    const [, xr, yr] = ev.get_root_coords();
    if (!pastSlop(p, { x: xr, y: yr })) return false;
    entry.press = null;
    win.begin_move_drag(1, Math.round(p.x), Math.round(p.y), p.time);
    send({ type: "drag", id });
    watchDragEnd(id, entry);
    return true;
  });
}

/**
 * The window's life: its place once a move settles, shown, closed by the user, its page loaded or not.
 * @param {string} id
 * @param {Widgets} entry
 */
function followWindow(id, entry) {
  const { win, view } = entry;
  let configured = 0;
  const bounds = () => {
    const [x, y] = win.get_position();
    const [width, height] = win.get_size();
    return { x, y, width, height };
  };
  win.connect("configure-event", () => {
    // Her bubble follows every step (a walk, a drag), not only once the move settled.
    apply(onBounds(state, id, bounds()));
    // Geometry settles in bursts (a drag): report once it is quiet.
    if (configured) GLib.source_remove(configured);
    configured = GLib.timeout_add(GLib.PRIORITY_DEFAULT, 150, () => {
      configured = 0;
      if (widgets.get(id) === entry) send({ type: "geometry", id, ...geometry(entry) });
      return GLib.SOURCE_REMOVE;
    });
    return false;
  });
  win.connect("map-event", () => {
    const w = state.windows.get(id);
    if (w) apply(shapeActions(id, w));
    apply(onBounds(state, id, bounds()));
    send({ type: "mapped", id, ...geometry(entry) });
    return false;
  });
  // An ordinary window's keyboard focus: the characters make room for it while it has it (the host decides).
  win.connect("focus-in-event", () => {
    apply(onFocus(state, id, true));
    return false;
  });
  win.connect("focus-out-event", () => {
    apply(onFocus(state, id, false));
    return false;
  });
  win.connect("delete-event", () => {
    widgets.delete(id);
    apply(onUserClosed(state, id));
    return false;
  });
  view.connect("load-changed", (_v, ev) => {
    if (ev === WebKit2.LoadEvent.FINISHED) apply(onLoaded(state, id));
  });
  view.connect("load-failed", (_v, _ev, uri, err) => {
    send({ type: "load-failed", id, uri, message: err.message });
    return false;
  });
}

/**
 * Her window shows the host's pages only: a link elsewhere (or a new window) opens in the user's browser.
 * @param {import("gi://WebKit2?version=4.1").default.WebView} view
 * @param {string} url
 */
function keepToOrigin(view, url) {
  const origin = GLib.Uri.parse(url, GLib.UriFlags.NONE);
  view.connect("decide-policy", (_v, decision, type) => {
    if (
      type !== WebKit2.PolicyDecisionType.NAVIGATION_ACTION &&
      type !== WebKit2.PolicyDecisionType.NEW_WINDOW_ACTION
    )
      return false;
    const uri = decision.get_navigation_action().get_request().get_uri();
    let same = false;
    try {
      const u = GLib.Uri.parse(uri, GLib.UriFlags.NONE);
      same =
        u.get_scheme() === origin.get_scheme() &&
        u.get_host() === origin.get_host() &&
        u.get_port() === origin.get_port();
    } catch {
      same = false;
    }
    if (same && type === WebKit2.PolicyDecisionType.NAVIGATION_ACTION) return false;
    decision.ignore();
    if (/^https?:/.test(uri)) Gio.AppInfo.launch_default_for_uri_async(uri, null, null, null);
    return true;
  });
}

/**
 * Her bubble's window shows its own document only: every other navigation is refused, and its context menu
 * (reload, inspect) is off.
 * @param {import("gi://WebKit2?version=4.1").default.WebView} view
 * @param {string} url
 */
function keepToDocument(view, url) {
  const doc = url.split("?")[0];
  view.connect("decide-policy", (_v, decision, type) => {
    if (
      type !== WebKit2.PolicyDecisionType.NAVIGATION_ACTION &&
      type !== WebKit2.PolicyDecisionType.NEW_WINDOW_ACTION
    )
      return false;
    const uri = decision.get_navigation_action().get_request().get_uri();
    if (type === WebKit2.PolicyDecisionType.NAVIGATION_ACTION && uri.split("?")[0] === doc) return false;
    decision.ignore();
    return true;
  });
  view.connect("context-menu", () => !GLib.getenv("YUI_SHELL_DEVTOOLS"));
}

// ---- the global shortcut ----
/** The shortcut that opens main's input from anywhere. */
const SHORTCUT = shortcutFrom(GLib.getenv("YUI_SHORTCUT"));
/** @type {string | null} */
let shortcut = null;
function startShortcut() {
  if (!Keybinder) {
    log(`no global shortcut: install gir1.2-keybinder-3.0 (${SHORTCUT} would open her input)`);
    return;
  }
  Keybinder.init();
  if (Keybinder.bind(SHORTCUT, () => send({ type: "shortcut" }))) shortcut = SHORTCUT;
  else log(`the global shortcut ${SHORTCUT} is taken by another program`);
}

// ---- the tray ----
/** @type {{ indicator: import("gi://AyatanaAppIndicator3?version=0.1").default.Indicator } & ReturnType<typeof gtkMenu> | null} */
let tray = null;
function startTray() {
  if (!AppIndicator) {
    log(
      "no tray icon: install gir1.2-ayatanaappindicator3-0.1; her menu (right-click on her) has the same entries",
    );
    return;
  }
  const menu = gtkMenu("", trayMenu(state));
  const indicator = AppIndicator.Indicator.new(
    "yui",
    "face-smile",
    AppIndicator.IndicatorCategory.APPLICATION_STATUS,
  );
  indicator.set_title("YUI");
  indicator.set_status(AppIndicator.IndicatorStatus.ACTIVE);
  indicator.set_menu(menu.menu);
  tray = { indicator, ...menu };
}

/**
 * Whether a tray shows the icon: a StatusNotifier host on the session bus, or a system tray (XEmbed) that
 * embeds a probe icon within TRAY_PROBE_MS. Every page hears it (onTray): without one, main says how to reach
 * her menu.
 */
const TRAY_PROBE_MS = 3000;
function probeTray() {
  if (!tray) {
    apply(onTray(state, false));
    return;
  }
  try {
    const bus = Gio.bus_get_sync(Gio.BusType.SESSION, null);
    const [owned] = /** @type {[boolean]} */ (
      bus
        .call_sync(
          "org.freedesktop.DBus",
          "/org/freedesktop/DBus",
          "org.freedesktop.DBus",
          "NameHasOwner",
          new GLib.Variant("(s)", ["org.kde.StatusNotifierWatcher"]),
          null,
          Gio.DBusCallFlags.NONE,
          1000,
          null,
        )
        .deepUnpack()
    );
    if (owned) {
      apply(onTray(state, true));
      return;
    }
  } catch {
    // No session bus: no StatusNotifier host.
  }
  const probe = Gtk.StatusIcon.new_from_icon_name("face-smile");
  probe.set_visible(true);
  let waited = 0;
  GLib.timeout_add(GLib.PRIORITY_DEFAULT, 100, () => {
    waited += 100;
    const embedded = probe.is_embedded();
    if (!embedded && waited < TRAY_PROBE_MS) return GLib.SOURCE_CONTINUE;
    probe.set_visible(false);
    log(
      embedded
        ? "a system tray shows the icon"
        : "no tray shows the icon: her menu is on a right-click on her",
    );
    apply(onTray(state, embedded));
    return GLib.SOURCE_REMOVE;
  });
}
/**
 * The app's lasting sign on the tray's icon (no backend answers): a warning icon and title until cleared.
 * @param {string | null} warning
 */
function setTraySign(warning) {
  log(`tray sign: ${warning ?? "none"}`);
  if (!tray) return;
  tray.indicator.set_icon_full(warning ? "dialog-warning" : "face-smile", warning ?? "YUI");
  tray.indicator.set_title(warning ? `YUI: ${warning}` : "YUI");
}
/**
 * The tray's menu now: the same entries relabelled (its click-through entry says what it will do), or a new
 * menu when the entries changed.
 * @param {MenuEntry[]} entries
 */
function updateTray(entries) {
  if (!tray) return;
  if (entries.map((e) => e?.action ?? "-").join() === tray.rows) {
    for (const e of entries) if (e) tray.items.get(e.action)?.set_label(e.label);
    return;
  }
  const next = gtkMenu("", entries);
  tray.indicator.set_menu(next.menu);
  tray = { indicator: tray.indicator, ...next };
}

// ---- the screen ----
function onMonitorsChanged() {
  /** @type {Map<string, Rect>} */
  const bounds = new Map();
  for (const [id, e] of widgets) bounds.set(id, geometry(e));
  apply(onMonitors(state, monitors(), bounds));
}
screen.connect("monitors-changed", onMonitorsChanged);
display.connect("monitor-added", onMonitorsChanged);
display.connect("monitor-removed", onMonitorsChanged);
screen.connect("composited-changed", () => apply(onCompositor(state, composited())));

// The host's end of stdin closing means the host is gone: the shell goes with it.
const stdin = new Gio.DataInputStream({ base_stream: new Gio.UnixInputStream({ fd: 0, close_fd: false }) });
function readLine() {
  stdin.read_line_async(GLib.PRIORITY_DEFAULT, null, (s, res) => {
    /** @type {string | null} */
    let line = null;
    try {
      [line] = s.read_line_finish_utf8(res);
    } catch (e) {
      log(`stdin: ${/** @type {Error} */ (e).message}`);
    }
    if (line === null) {
      Gtk.main_quit();
      return;
    }
    if (line.trim()) apply(onHostLine(state, line));
    readLine();
  });
}
readLine();

if (!composited()) {
  log(
    "no compositor: transparency needs one (xcompmgr, picom, or your desktop's). Showing her in a framed window with an opaque background.",
  );
}
if (wayland) {
  log(
    "Wayland session: running through XWayland. Other apps' native Wayland windows cannot be listed or sat on.",
  );
}
startTray();
probeTray();
startShortcut();
send(readyMessage(state, Boolean(tray), shortcut));
Gtk.main();
send({ type: "exit" });
