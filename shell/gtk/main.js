// YUI's Linux desktop shell: gjs + GTK 3 + WebKitGTK 4.1, started by the host (`yui desktop`) as
// `gjs -m shell/gtk/main.js`. It speaks the shell contract (shell/contract.ts, docs/desktop.md): JSON lines on
// stdin (host -> shell) and stdout (shell -> host). Each character is one window: transparent (RGBA visual),
// undecorated, above the others, off the taskbar and pager, WM_CLASS yui/YUI. The page inside talks to the
// shell through the `yui` script message handler; the shell answers with run_javascript.
import Gdk from "gi://Gdk?version=3.0";
import Gio from "gi://Gio";
import GLib from "gi://GLib";
import Gtk from "gi://Gtk?version=3.0";
import WebKit2 from "gi://WebKit2?version=4.1";
import cairo from "cairo";
import System from "system";
import { cleanRects, inRects, placeOnVisible } from "../geometry.js";

Gtk.init(null);

// gjs collects its JavaScript heap when that heap grows, blind to the native memory its wrappers hold (the
// page's messages as JSC values, cairo regions, signal arguments): idle on the desktop, the shell's resident
// memory grew about 1.3 MB a minute, and stayed flat with a collection a minute (docs/benchmarks.md), which
// takes a few milliseconds on this small heap.
GLib.timeout_add_seconds(GLib.PRIORITY_LOW, 60, () => {
  System.gc();
  return GLib.SOURCE_CONTINUE;
});

// Her windows' transparent background (open() adds the class).
const css = new Gtk.CssProvider();
css.load_from_data(".yui-transparent { background-color: transparent; }");
Gtk.StyleContext.add_provider_for_screen(
  Gdk.Screen.get_default(),
  css,
  Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION,
);

// The tray icon: Ayatana AppIndicator (StatusNotifierItem where the desktop has a host for it, an XEmbed
// tray icon where it has a system tray), when its typelib is installed.
let AppIndicator = null;
try {
  AppIndicator = (await import("gi://AyatanaAppIndicator3?version=0.1")).default;
} catch {
  AppIndicator = null;
}

const stdout = new Gio.DataOutputStream({
  base_stream: new Gio.UnixOutputStream({ fd: 1, close_fd: false }),
});
/** One message to the host: a JSON line on stdout. */
function send(msg) {
  try {
    stdout.put_string(`${JSON.stringify(msg)}\n`, null);
    stdout.flush(null);
  } catch {
    // The host is gone; stdin's end quits us.
  }
}
const log = (text) => printerr(`[shell] ${text}`);

const display = Gdk.Display.get_default();
if (!display) {
  printerr("[shell] no display: set DISPLAY (X11) or run under XWayland");
  send({ type: "error", message: "no display" });
  imports.system.exit(1);
}
const screen = display.get_default_screen();
const wayland = Boolean(GLib.getenv("WAYLAND_DISPLAY"));
const composited = () => Boolean(screen.is_composited() && screen.get_rgba_visual());

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

/** id -> { win, view, shape, drag, press, clickThrough } */
const windows = new Map();

function geometry(entry) {
  const [x, y] = entry.win.get_position();
  const [width, height] = entry.win.get_size();
  const gw = entry.win.get_window();
  const mon = gw ? display.get_monitor_at_window(gw) : null;
  let index = -1;
  for (let i = 0; i < display.get_n_monitors(); i++) if (display.get_monitor(i) === mon) index = i;
  return { x, y, width, height, monitor: index };
}

// The input shape: only her silhouette (and the bubble, the input) takes clicks; everything else passes to
// the windows below. Set on the GdkWindow, so it must exist (after realize); openbox keeps it across maps.
function applyShape(id) {
  const e = windows.get(id);
  if (!e) return;
  const gw = e.win.get_window();
  if (!gw) return;
  const region = new cairo.Region();
  // Click-through off (no compositor, or the user's way back): the whole window takes input.
  const rects = e.clickThrough ? e.shape : [[0, 0, 32767, 32767]];
  for (const [x, y, width, height] of rects) region.unionRectangle({ x, y, width, height });
  gw.input_shape_combine_region(region, 0, 0);
  send({ type: "shape", id, rects: rects.length });
}

// The window manager moves her while the user drags, and the button's release goes to it, not to us: the
// pointer's button state is read until it is up, then the window's place once it settled.
function watchDragEnd(id, entry) {
  const pointer = display.get_default_seat().get_pointer();
  const root = screen.get_root_window();
  GLib.timeout_add(GLib.PRIORITY_DEFAULT, 50, () => {
    if (windows.get(id) !== entry) return GLib.SOURCE_REMOVE;
    const [, , , mask] = root.get_device_position(pointer);
    if (mask & Gdk.ModifierType.BUTTON1_MASK) return GLib.SOURCE_CONTINUE;
    GLib.timeout_add(GLib.PRIORITY_DEFAULT, 200, () => {
      if (windows.get(id) === entry) send({ type: "drag-end", id, ...geometry(entry) });
      return GLib.SOURCE_REMOVE;
    });
    return GLib.SOURCE_REMOVE;
  });
}

/** A PNG of a rectangle of the screen as it is shown (look at: screen), as base64. */
function capture(m) {
  try {
    const pixbuf = Gdk.pixbuf_get_from_window(screen.get_root_window(), m.x, m.y, m.width, m.height);
    if (!pixbuf) throw new Error("the screen could not be read");
    const [, bytes] = pixbuf.save_to_bufferv("png", [], []);
    send({ type: "capture", req: m.req, png: GLib.base64_encode(bytes) });
  } catch (e) {
    send({ type: "capture", req: m.req, error: e.message });
  }
}

function toPage(id, msg) {
  const e = windows.get(id);
  if (!e) return;
  e.view.run_javascript(`window.__yuiShell && window.__yuiShell(${JSON.stringify(msg)})`, null, null);
}

function shellState() {
  return { type: "shell", shell: "gtk", compositor: composited(), wayland };
}

function fromPage(id, raw) {
  let msg;
  try {
    msg = JSON.parse(raw);
  } catch {
    return;
  }
  const e = windows.get(id);
  if (!e || !msg || typeof msg !== "object") return;
  if (msg.type === "shape") {
    e.shape = cleanRects(msg.rects);
    e.drag = cleanRects(msg.drag);
    applyShape(id);
  } else if (msg.type === "hello") {
    toPage(id, shellState());
  }
}

// ---- the microphone (listening, docs/voice.md#listening) ----
/** The host's origin, from the host that started the shell; unset, no page gets the microphone. */
const HOST_ORIGIN = GLib.getenv("YUI_HOST_ORIGIN");

/** `scheme://host:port` of a URI, or null. */
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

function open(m) {
  if (windows.has(m.id)) {
    const e = windows.get(m.id);
    e.win.set_title(m.title);
    e.win.present();
    return;
  }
  // An ordinary window (chat, settings, quick controls): framed, opaque, in the taskbar, not above.
  const ordinary = Boolean(m.frame);
  const transparent = !ordinary && composited();
  const win = new Gtk.Window({ type: Gtk.WindowType.TOPLEVEL, title: m.title });
  win.set_wmclass("yui", "YUI");
  win.set_default_size(m.width, m.height);
  if (!ordinary) {
    win.set_keep_above(true);
    win.set_skip_taskbar_hint(true);
    win.set_skip_pager_hint(true);
  }
  if (transparent) {
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
  if (transparent) view.set_background_color(new Gdk.RGBA({ red: 0, green: 0, blue: 0, alpha: 0 }));
  grantMicrophone(view);
  win.add(view);
  const entry = { win, view, shape: [], drag: [], press: null, clickThrough: transparent, ordinary };
  windows.set(m.id, entry);
  ucm.connect("script-message-received::yui", (_u, result) => {
    const v = result.get_js_value();
    fromPage(m.id, v.is_string() ? v.to_string() : v.to_json(0));
  });

  // Dragging her: a press on her silhouette followed by a move of a few pixels hands the move to the window
  // manager; a press without a move stays a click for the page (it opens her input).
  view.connect("button-press-event", (_v, ev) => {
    const [, button] = ev.get_button();
    const [, x, y] = ev.get_coords();
    const [, xr, yr] = ev.get_root_coords();
    // A right-click on her (anywhere while click-through is off) opens her menu: the user's way back.
    if (button === 3 && !ordinary && (!entry.clickThrough || inRects(entry.drag, x, y))) {
      showMenu(m.id, entry, ev);
      return true;
    }
    entry.press = button === 1 && inRects(entry.drag, x, y) ? { x: xr, y: yr, time: ev.get_time() } : null;
    return false;
  });
  // WebKit's own context menu (reload, inspect) is not hers.
  view.connect("context-menu", () => !entry.ordinary || !GLib.getenv("YUI_SHELL_DEVTOOLS"));
  view.connect("button-release-event", () => {
    entry.press = null;
    return false;
  });
  view.connect("motion-notify-event", (_v, ev) => {
    if (!entry.press) return false;
    const [, xr, yr] = ev.get_root_coords();
    if (Math.abs(xr - entry.press.x) + Math.abs(yr - entry.press.y) < 5) return false;
    const p = entry.press;
    entry.press = null;
    win.begin_move_drag(1, Math.round(p.x), Math.round(p.y), p.time);
    send({ type: "drag", id: m.id });
    watchDragEnd(m.id, entry);
    return true;
  });

  let configured = 0;
  win.connect("configure-event", () => {
    // Geometry settles in bursts (a drag): report once it is quiet.
    if (configured) GLib.source_remove(configured);
    configured = GLib.timeout_add(GLib.PRIORITY_DEFAULT, 150, () => {
      configured = 0;
      if (windows.get(m.id) === entry) send({ type: "geometry", id: m.id, ...geometry(entry) });
      return GLib.SOURCE_REMOVE;
    });
    return false;
  });
  win.connect("map-event", () => {
    applyShape(m.id);
    send({ type: "mapped", id: m.id, ...geometry(entry) });
    return false;
  });
  win.connect("delete-event", () => {
    windows.delete(m.id);
    send({ type: "closed", id: m.id });
    return false;
  });
  view.connect("load-changed", (_v, ev) => {
    if (ev === WebKit2.LoadEvent.FINISHED) toPage(m.id, shellState());
  });
  // Her window shows the host's pages only: a link elsewhere opens in the user's browser.
  const origin = GLib.Uri.parse(m.url, GLib.UriFlags.NONE);
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
  view.connect("load-failed", (_v, _ev, uri, err) => {
    send({ type: "load-failed", id: m.id, uri, message: err.message });
    return false;
  });

  const sep = m.url.includes("?") ? "&" : "?";
  view.load_uri(transparent ? m.url : `${m.url}${sep}opaque=1`);
  win.realize();
  // Empty input shape until the page reports her silhouette: a transparent window never eats a click.
  applyShape(m.id);
  const at = m.x !== undefined && m.y !== undefined ? { x: m.x, y: m.y } : null;
  if (at) {
    const p = placeOnVisible({ ...at, width: m.width, height: m.height }, monitors());
    win.move(p.x, p.y);
  }
  win.show_all();
}

/** Her menu's entries: [action, label]; null is a separator. The host decides what each action does. */
function menuEntries(entry) {
  return [
    ["chat", "Chat"],
    ["settings", "Settings"],
    ["quick", "Quick controls"],
    null,
    ["reset-position", "Reset position"],
    // Without a compositor there is no click-through to turn on.
    ...(composited()
      ? [["click-through", entry.clickThrough ? "Turn click-through off" : "Turn click-through on"]]
      : []),
    null,
    ["quit", "Quit YUI"],
  ];
}

function showMenu(id, entry, ev) {
  const menu = new Gtk.Menu();
  for (const e of menuEntries(entry)) {
    if (!e) {
      menu.append(new Gtk.SeparatorMenuItem());
      continue;
    }
    const [action, label] = e;
    const item = new Gtk.MenuItem({ label });
    item.connect("activate", () => send({ type: "menu", id, action }));
    menu.append(item);
  }
  menu.show_all();
  menu.attach_to_widget(entry.win, null);
  menu.popup_at_pointer(ev);
  entry.menu = menu;
}

// ---- the global shortcut ----
/** The shortcut that opens main's input from anywhere. */
const SHORTCUT = GLib.getenv("YUI_SHORTCUT") || "<Ctrl><Alt>y";
let Keybinder = null;
try {
  Keybinder = (await import("gi://Keybinder?version=3.0")).default;
} catch {
  Keybinder = null;
}
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
let tray = null;
function trayMenu() {
  const menu = new Gtk.Menu();
  const item = (action, label) => {
    const i = new Gtk.MenuItem({ label });
    i.connect("activate", () => send({ type: "menu", id: "", action }));
    menu.append(i);
    return i;
  };
  item("chat", "Chat");
  item("settings", "Settings");
  item("quick", "Quick controls");
  menu.append(new Gtk.SeparatorMenuItem());
  item("hide", "Hide characters");
  item("show", "Show characters");
  item("reset-position", "Reset positions");
  const ct = composited() ? item("click-through", "Turn click-through off") : null;
  menu.append(new Gtk.SeparatorMenuItem());
  item("quit", "Quit YUI");
  menu.show_all();
  return { menu, ct };
}
function startTray() {
  if (!AppIndicator) {
    log(
      "no tray icon: install gir1.2-ayatanaappindicator3-0.1; her menu (right-click on her) has the same entries",
    );
    return;
  }
  const { menu, ct } = trayMenu();
  const indicator = AppIndicator.Indicator.new(
    "yui",
    "face-smile",
    AppIndicator.IndicatorCategory.APPLICATION_STATUS,
  );
  indicator.set_title("YUI");
  indicator.set_status(AppIndicator.IndicatorStatus.ACTIVE);
  indicator.set_menu(menu);
  tray = { indicator, menu, ct };
}
/** The tray's click-through entry says what it will do: off while any character window has it on. */
function refreshTray() {
  if (!tray?.ct) return;
  const on = [...windows.values()].some((e) => !e.ordinary && e.clickThrough);
  tray.ct.set_label(on ? "Turn click-through off" : "Turn click-through on");
}

function close(id) {
  const e = windows.get(id);
  if (!e) return;
  windows.delete(id);
  e.win.destroy();
}

function keepVisible() {
  const list = monitors();
  for (const [id, e] of windows) {
    const g = geometry(e);
    const p = placeOnVisible(g, list);
    if (p.x !== g.x || p.y !== g.y) {
      e.win.move(p.x, p.y);
      log(`window ${id} moved onto a visible monitor (${p.x}, ${p.y})`);
    }
  }
}

function onMonitorsChanged() {
  send({ type: "monitors", monitors: monitors() });
  keepVisible();
}
screen.connect("monitors-changed", onMonitorsChanged);
display.connect("monitor-added", onMonitorsChanged);
display.connect("monitor-removed", onMonitorsChanged);
screen.connect("composited-changed", () => {
  send({ type: "compositor", compositor: composited() });
  for (const id of windows.keys()) toPage(id, shellState());
});

function handle(line) {
  let m;
  try {
    m = JSON.parse(line);
  } catch {
    log(`not JSON: ${line.slice(0, 80)}`);
    return;
  }
  switch (m?.type) {
    case "open":
      open(m);
      break;
    case "close":
      close(m.id);
      break;
    case "move": {
      const e = windows.get(m.id);
      e?.win.move(m.x, m.y);
      break;
    }
    case "title":
      windows.get(m.id)?.win.set_title(m.title);
      break;
    case "click-through": {
      const e = windows.get(m.id);
      if (e && !e.ordinary) {
        e.clickThrough = Boolean(m.enabled) && composited();
        applyShape(m.id);
        refreshTray();
      }
      break;
    }
    case "input": {
      // Her input, opened by the global shortcut: her window comes forward with the keyboard.
      const e = windows.get(m.id);
      if (!e) break;
      e.win.show_all();
      e.win.present_with_time(Keybinder ? Keybinder.get_current_event_time() : Gdk.CURRENT_TIME);
      toPage(m.id, { type: "open-input" });
      break;
    }
    case "visible": {
      const e = windows.get(m.id);
      if (e && m.visible) e.win.show_all();
      else e?.win.hide();
      break;
    }
    case "capture":
      capture(m);
      break;
    case "quit":
      Gtk.main_quit();
      break;
    default:
      log(`unknown message ${m?.type}`);
  }
}

// The host's end of stdin closing means the host is gone: the shell goes with it.
const stdin = new Gio.DataInputStream({ base_stream: new Gio.UnixInputStream({ fd: 0, close_fd: false }) });
function readLine() {
  stdin.read_line_async(GLib.PRIORITY_DEFAULT, null, (s, res) => {
    let line = null;
    try {
      [line] = s.read_line_finish_utf8(res);
    } catch (e) {
      log(`stdin: ${e.message}`);
    }
    if (line === null) {
      Gtk.main_quit();
      return;
    }
    if (line.trim()) handle(line);
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
startShortcut();
send({
  type: "ready",
  shell: "gtk",
  compositor: composited(),
  wayland,
  tray: Boolean(tray),
  shortcut,
  monitors: monitors(),
});
Gtk.main();
send({ type: "exit" });
