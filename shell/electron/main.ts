/**
 * YUI's desktop shell for macOS and Windows (docs/electron.md): Electron, started by the host (`yui desktop`)
 * as `electron <bundle>/main.cjs` (shell/electron/launch.ts bundles this file). It speaks the shell contract
 * (shell/contract.ts, docs/desktop.md): JSON lines on stdin (host → shell) and stdout (shell → host). The
 * decisions are logic.ts's (tested without Electron); this file applies them to BrowserWindows, the tray,
 * the global shortcut and the screen.
 */
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import {
  app,
  BrowserWindow,
  desktopCapturer,
  globalShortcut,
  Menu,
  nativeImage,
  screen,
  session,
  shell,
  systemPreferences,
  Tray,
} from "electron";
import type { Rect, ShellToHost, ShellToPage } from "../contract.ts";
import { pageScript, shortcutFrom } from "../core.js";
import { CHANNELS, type PagePointer } from "./channels.ts";
import {
  type Action,
  capturePlan,
  type DisplayInfo,
  electronAccelerator,
  hoverWatched,
  type MenuEntry,
  monitorIndexOf,
  monitorsFromDisplays,
  newState,
  onBounds,
  onContextMenu,
  onFocus,
  onHostLine,
  onHover,
  onLoaded,
  onMonitors,
  onPage,
  onPointer,
  onTray,
  onUserClosed,
  readyMessage,
  trayIconBitmap,
  trayMenu,
} from "./logic.ts";
import { permissionAllowed } from "./microphone.ts";

/** One message to the host: a JSON line on stdout. */
function send(m: ShellToHost): void {
  try {
    process.stdout.write(`${JSON.stringify(m)}\n`);
  } catch {
    // The host is gone; stdin's end quits us.
  }
}
const log = (text: string) => process.stderr.write(`[shell] ${text}\n`);

/** The shortcut that opens main's input from anywhere, in GTK syntax like the Linux shell's. */
const SHORTCUT = shortcutFrom(process.env.YUI_SHORTCUT);

const state = newState({
  // Her bubble's window shows the shell's own document, bundled beside main.cjs (launch.ts copies it).
  bubbleUrl: pathToFileURL(join(__dirname, "bubble", "bubble.html")).href,
  compositor: true,
  wayland: process.platform === "linux" && Boolean(process.env.WAYLAND_DISPLAY),
});
const windows = new Map<string, BrowserWindow>();
/** The size each character window (not an ordinary one) was created with: she keeps it while she moves. */
const sizes = new Map<string, { width: number; height: number }>();
let tray: Tray | null = null;

// Only the host ends the shell: closing every window does not.
app.on("window-all-closed", () => {});
app.on("will-quit", () => {
  globalShortcut.unregisterAll();
  send({ type: "exit" });
});
process.stdout.on("error", () => {});

function displays(): DisplayInfo[] {
  return screen.getAllDisplays().map((d) => ({
    id: d.id,
    label: d.label,
    bounds: d.bounds,
    workArea: d.workArea,
    scaleFactor: d.scaleFactor,
  }));
}
const readMonitors = () => monitorsFromDisplays(displays(), screen.getPrimaryDisplay().id);

function geometryOf(id: string, win: BrowserWindow) {
  const b = win.getBounds();
  return { id, x: b.x, y: b.y, width: b.width, height: b.height, monitor: monitorIndexOf(b, state.monitors) };
}

function menuFrom(id: string, entries: MenuEntry[]): Menu {
  return Menu.buildFromTemplate(
    entries.map((e) =>
      e === null
        ? { type: "separator" as const }
        : { label: e.label, click: () => send({ type: "menu", id, action: e.action }) },
    ),
  );
}

function toPage(win: BrowserWindow, message: ShellToPage): void {
  win.webContents.executeJavaScript(pageScript(message)).catch(() => {});
}

function apply(actions: Action[]): void {
  for (const a of actions) {
    switch (a.do) {
      case "create":
        create(a);
        break;
      case "raise": {
        const win = windows.get(a.id);
        if (!win) break;
        win.setTitle(a.title);
        win.show();
        win.focus();
        break;
      }
      case "destroy": {
        const win = windows.get(a.id);
        windows.delete(a.id);
        sizes.delete(a.id);
        win?.destroy();
        break;
      }
      case "position": {
        const win = windows.get(a.id);
        const size = sizes.get(a.id);
        // setBounds with the size she was created with: setPosition alone can grow a window on Windows at
        // fractional scale factors, a little at every step of a drag.
        if (win && size) win.setBounds({ x: Math.round(a.x), y: Math.round(a.y), ...size });
        else win?.setPosition(Math.round(a.x), Math.round(a.y));
        break;
      }
      case "place":
        windows.get(a.id)?.setBounds({
          x: Math.round(a.x),
          y: Math.round(a.y),
          width: Math.round(a.width),
          height: Math.round(a.height),
        });
        break;
      case "status":
        tray?.setToolTip(a.warning ? `YUI: ${a.warning}` : "YUI");
        break;
      case "resize": {
        const win = windows.get(a.id);
        if (!win) break;
        // Her bottom-centre stays where it is; the new size is the one setBounds keeps from now on.
        const b = win.getBounds();
        const size = { width: Math.round(a.width), height: Math.round(a.height) };
        sizes.set(a.id, size);
        win.setBounds({
          x: Math.round(b.x + (b.width - size.width) / 2),
          y: b.y + b.height - size.height,
          ...size,
        });
        break;
      }
      case "above":
        windows.get(a.id)?.setAlwaysOnTop(a.above, "floating");
        break;
      case "title":
        windows.get(a.id)?.setTitle(a.title);
        break;
      case "mouse": {
        const win = windows.get(a.id);
        if (a.ignore) win?.setIgnoreMouseEvents(true, { forward: true });
        else win?.setIgnoreMouseEvents(false);
        break;
      }
      case "show": {
        const win = windows.get(a.id);
        if (!win) break;
        if (a.focus) {
          win.show();
          if (process.platform === "darwin") app.focus({ steal: true });
          win.focus();
        } else win.showInactive();
        break;
      }
      case "hide":
        windows.get(a.id)?.hide();
        break;
      case "page": {
        const win = windows.get(a.id);
        if (win) toPage(win, a.message);
        break;
      }
      case "host":
        send(a.message);
        break;
      case "report": {
        const win = windows.get(a.id);
        if (win) send({ type: a.kind, ...geometryOf(a.id, win) });
        break;
      }
      case "swallow-click":
        windows.get(a.id)?.webContents.send(CHANNELS.swallowClick);
        break;
      case "menu": {
        const win = windows.get(a.id);
        if (win) menuFrom(a.id, a.entries).popup({ window: win });
        break;
      }
      case "tray":
        tray?.setContextMenu(menuFrom("", a.entries));
        break;
      case "capture":
        void capture(a.req, a.rect);
        break;
      case "quit":
        app.quit();
        break;
      case "log":
        log(a.text);
        break;
    }
  }
}

function create(a: Extract<Action, { do: "create" }>): void {
  const win = new BrowserWindow({
    title: a.title,
    width: a.width,
    height: a.height,
    ...(a.x !== undefined && a.y !== undefined ? { x: a.x, y: a.y } : {}),
    show: false,
    frame: a.ordinary || !a.transparent,
    transparent: a.transparent,
    ...(a.transparent ? { backgroundColor: "#00000000", hasShadow: false, resizable: false } : {}),
    alwaysOnTop: !a.ordinary,
    skipTaskbar: !a.ordinary,
    webPreferences: {
      preload: join(__dirname, "preload.cjs"),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      devTools: Boolean(process.env.YUI_SHELL_DEVTOOLS),
    },
  });
  // Above ordinary windows (macOS: the floating level, like a palette).
  if (!a.ordinary) win.setAlwaysOnTop(true, "floating");
  windows.set(a.id, win);
  if (!a.ordinary) sizes.set(a.id, { width: a.width, height: a.height });
  else sizes.delete(a.id);
  const id = a.id;
  const mine = () => windows.get(id) === win;
  const wc = win.webContents;

  wc.ipc.on(CHANNELS.page, (_e, raw: unknown) => apply(onPage(state, id, raw)));
  wc.ipc.on(CHANNELS.pointer, (_e, p: PagePointer) => {
    if (!p || typeof p !== "object") return;
    const [wx, wy] = win.getPosition();
    apply(
      onPointer(state, id, {
        kind: p.kind,
        x: Number(p.x),
        y: Number(p.y),
        button: Number(p.button),
        cursor: screen.getCursorScreenPoint(),
        win: { x: wx ?? 0, y: wy ?? 0 },
      }),
    );
  });
  wc.on("context-menu", (_e, params) => apply(onContextMenu(state, id, params.x, params.y)));
  wc.on("did-finish-load", () => apply(onLoaded(state, id)));
  wc.on("did-fail-load", (_e, code, description, uri, isMainFrame) => {
    // -3 is an aborted load (a newer navigation replaced it), not a failure.
    if (!isMainFrame || code === -3) return;
    send({ type: "load-failed", id, uri, message: description });
    // Shown anyway, as on Linux: a window that never appears would leave no way to see what failed.
    if (mine() && !win.isVisible()) win.showInactive();
  });

  // Her window shows the host's pages only: a link elsewhere (or a new window) opens in the user's browser.
  const origin = new URL(a.url).origin;
  const outside = (uri: string) => {
    let same = false;
    try {
      same = new URL(uri).origin === origin;
    } catch {
      same = false;
    }
    if (!same && /^https?:/.test(uri)) void shell.openExternal(uri);
    return !same;
  };
  wc.on("will-navigate", (e) => {
    if (outside(e.url)) e.preventDefault();
  });
  wc.setWindowOpenHandler(({ url }) => {
    outside(url);
    return { action: "deny" };
  });

  // Geometry settles in bursts (a drag): report once it is quiet.
  let settle: NodeJS.Timeout | undefined;
  const moved = () => {
    clearTimeout(settle);
    settle = setTimeout(() => {
      if (mine() && !win.isDestroyed()) send({ type: "geometry", ...geometryOf(id, win) });
    }, 150);
  };
  // Her bubble follows every step of a move, not only once it settled.
  const bounds = () => {
    if (mine() && !win.isDestroyed()) apply(onBounds(state, id, win.getBounds()));
  };
  win.on("move", moved);
  win.on("resize", moved);
  win.on("move", bounds);
  win.on("resize", bounds);
  win.on("show", bounds);
  // An ordinary window's focus: the characters make room for it while it has it (the host decides).
  win.on("focus", () => apply(onFocus(state, id, true)));
  win.on("blur", () => apply(onFocus(state, id, false)));
  win.on("show", () => {
    if (mine()) send({ type: "mapped", ...geometryOf(id, win) });
  });
  win.on("closed", () => {
    clearTimeout(settle);
    // A window the host closed is gone from the map already: only the user's close is reported.
    if (mine()) {
      windows.delete(id);
      sizes.delete(id);
      apply(onUserClosed(state, id));
    }
  });
  win.once("ready-to-show", () => {
    // Her bubble is shown once the core placed it beside her head.
    if (!mine() || a.bubble) return;
    if (a.ordinary) win.show();
    else win.showInactive();
  });
  void win.loadURL(a.url).catch(() => {});
}

/** A PNG of a screen rectangle (DIP), from the display's full-resolution thumbnail, sized to the rectangle. */
async function capture(req: number, rect: Rect): Promise<void> {
  try {
    // macOS: without Screen Recording the thumbnails hold the wallpaper and YUI's own windows only. A first
    // request (status not determined) lets macOS ask the user; until it is granted, capture answers why not.
    const permission = () =>
      process.platform !== "darwin" || systemPreferences.getMediaAccessStatus("screen") === "granted";
    const denied = new Error(
      "screen capture needs the Screen Recording permission (System Settings → Privacy & Security → Screen Recording)",
    );
    if (
      process.platform === "darwin" &&
      ["denied", "restricted"].includes(systemPreferences.getMediaAccessStatus("screen"))
    )
      throw denied;
    const plan = capturePlan(displays(), rect);
    if ("error" in plan) throw new Error(plan.error);
    const d = plan.display;
    const s = d.scaleFactor || 1;
    const sources = await desktopCapturer.getSources({
      types: ["screen"],
      thumbnailSize: { width: Math.round(d.bounds.width * s), height: Math.round(d.bounds.height * s) },
    });
    const source =
      sources.find((x) => x.display_id === String(d.id)) ?? (sources.length === 1 ? sources[0] : null);
    if (!permission()) throw denied;
    if (!source || source.thumbnail.isEmpty()) throw new Error("the screen could not be read");
    const image = source.thumbnail
      .crop(plan.pixels)
      .resize({ width: Math.round(plan.clip.width), height: Math.round(plan.clip.height) });
    send({ type: "capture", req, png: image.toPNG().toString("base64") });
  } catch (e) {
    send({ type: "capture", req, error: (e as Error).message });
  }
}

function startTray(): boolean {
  try {
    // 16 points, drawn at 32 pixels: a black template disc in macOS's menu bar (it follows light and dark),
    // a coloured one in Windows' notification area, which is dark by default.
    const mac = process.platform === "darwin";
    const bitmap = trayIconBitmap(32, mac ? [0, 0, 0] : [0x92, 0x6a, 0xe8]);
    const icon = nativeImage.createFromBitmap(Buffer.from(bitmap), { width: 32, height: 32, scaleFactor: 2 });
    if (mac) icon.setTemplateImage(true);
    tray = new Tray(icon);
    tray.setToolTip("YUI");
    apply([{ do: "tray", entries: trayMenu(state) }]);
    return true;
  } catch (e) {
    log(`no tray icon: ${(e as Error).message}; her menu (right-click on her) has the same entries`);
    return false;
  }
}

function startShortcut(): string | null {
  const accelerator = electronAccelerator(SHORTCUT);
  if (!accelerator) {
    log(`YUI_SHORTCUT ${SHORTCUT} is not a shortcut (GTK syntax, such as <Ctrl><Alt>y)`);
    return null;
  }
  try {
    if (globalShortcut.register(accelerator, () => send({ type: "shortcut" }))) return SHORTCUT;
  } catch {
    // An accelerator Electron does not accept: as taken.
  }
  log(`the global shortcut ${SHORTCUT} is taken by another program`);
  return null;
}

/** How often the cursor is polled over click-through windows (the fallback for moves Electron stops forwarding). */
const HOVER_POLL_MS = 100;
let lastCursor = "";
function pollHover(): void {
  const ids = hoverWatched(state);
  if (!ids.length) return;
  const c = screen.getCursorScreenPoint();
  const key = `${c.x},${c.y}`;
  if (key === lastCursor) return;
  lastCursor = key;
  for (const id of ids) {
    const win = windows.get(id);
    if (!win || win.isDestroyed()) continue;
    const b = win.getContentBounds();
    const inside = c.x >= b.x && c.x < b.x + b.width && c.y >= b.y && c.y < b.y + b.height;
    apply(onHover(state, id, inside ? { x: c.x - b.x, y: c.y - b.y } : null));
  }
}

function onScreenChanged(): void {
  const bounds = new Map<string, Rect>();
  for (const [id, win] of windows) bounds.set(id, win.getBounds());
  apply(onMonitors(state, readMonitors(), bounds));
}

/**
 * Listening (docs/voice.md#listening): the microphone for the host's own pages only (YUI_HOST_ORIGIN, set by
 * the host); the camera and any other origin are refused, and other permissions go to the host's pages only.
 */
function grantMicrophone(): void {
  const host = process.env.YUI_HOST_ORIGIN;
  session.defaultSession.setPermissionRequestHandler((wc, permission, callback, details) => {
    const d = details as { requestingUrl?: string; mediaTypes?: string[] };
    callback(
      permissionAllowed({ permission, url: d.requestingUrl ?? wc.getURL(), mediaTypes: d.mediaTypes }, host),
    );
  });
  session.defaultSession.setPermissionCheckHandler((_wc, permission, origin, details) => {
    const d = details as { mediaType?: string };
    return permissionAllowed({ permission, url: origin, mediaTypes: d.mediaType ? [d.mediaType] : [] }, host);
  });
}

app.whenReady().then(
  () => {
    grantMicrophone();
    state.monitors = readMonitors();
    screen.on("display-added", onScreenChanged);
    screen.on("display-removed", onScreenChanged);
    screen.on("display-metrics-changed", onScreenChanged);
    setInterval(pollHover, HOVER_POLL_MS);
    const hasTray = startTray();
    apply(onTray(state, hasTray));
    const shortcut = startShortcut();
    send(readyMessage(state, hasTray, shortcut));
    // The host's end of stdin closing means the host is gone: the shell goes with it.
    const lines = createInterface({ input: process.stdin });
    lines.on("line", (line) => {
      if (line.trim()) apply(onHostLine(state, line));
    });
    lines.on("close", () => app.quit());
  },
  (e: unknown) => {
    send({ type: "error", message: (e as Error).message });
    app.exit(1);
  },
);
