/**
 * The desktop app's windows (docs/desktop.md): main's window holds the active character, and each preset
 * opened as a pet (Settings → Characters) gets its own window; they follow the store as the user opens,
 * closes, renames and switches characters. The shell is reached only through the shell contract.
 */

import type { MENU_ACTIONS, Monitor } from "../../shell/contract.ts";

type MenuAction = (typeof MENU_ACTIONS)[number];

import { activePresetId, closePet, listPresets, openPetIds } from "../../src/app/presets/presets.ts";
import { DesktopSettingsSchema, desktopSettingsKey, SIZES } from "../../src/protocol/body.ts";
import { PRESET_KEYS } from "../../src/protocol/preset.ts";
import type { Store } from "../store/store.ts";
import { desktopSettings, layoutKey, recallPlace, rememberPlace, windowSize } from "./places.ts";
import { createRoom } from "./room.ts";
import type { ShellProcess } from "./shell-process.ts";

/** A character window's size at scale 1 (her size setting scales it: places.ts windowSize). */
export { BASE_WINDOW as WINDOW_SIZE } from "./places.ts";

/** The ordinary windows her menu opens: the browser build's pages. */
export const PAGES = {
  chat: { view: "main", title: "Chat", size: { width: 1000, height: 760 } },
  settings: { view: "settings", title: "Settings", size: { width: 1000, height: 800 } },
  quick: { view: "quick", title: "Quick controls", size: { width: 480, height: 560 } },
} as const;

/** The page of one of YUI's own windows (Chat, Settings, Quick controls): marked as the desktop app's (no Phone tab). */
export function pageUrl(hostUrl: string, view: string): string {
  return `${hostUrl}?view=${view}&app=desktop`;
}

/** The page of a character's window. */
export function desktopUrl(hostUrl: string, presetId: string, role: "main" | "pet"): string {
  return `${hostUrl}?view=desktop&preset=${encodeURIComponent(presetId)}&role=${role}`;
}

/**
 * Where the n-th character window of `size` starts: side by side from the bottom-right corner of the primary
 * monitor's work area, leftwards, standing on its floor.
 */
export function initialPlace(
  n: number,
  monitors: Monitor[],
  size: { width: number; height: number } = windowSize(1),
): { x: number; y: number } | undefined {
  const m = monitors.find((x) => x.primary) ?? monitors[0];
  if (!m) return undefined;
  const wa = m.workarea;
  const { width, height } = size;
  return {
    x: Math.max(wa.x, wa.x + wa.width - width * (n + 1) - 16 * n - 16),
    y: Math.max(wa.y, wa.y + wa.height - height),
  };
}

/** The monitor layout of the shell's monitors (places.ts layoutKey). */
const layoutOf = (monitors: Monitor[]) => layoutKey(monitors.map((m) => m.geometry));

/**
 * Where a character window opens: where she was on this monitor layout (her window's bottom-centre at the point
 * under her), else her first place.
 */
function openingPlace(
  store: Store,
  id: string,
  n: number,
  monitors: Monitor[],
  size: { width: number; height: number },
) {
  const was = recallPlace(store, id, layoutOf(monitors));
  if (was) return { x: Math.round(was.x - size.width / 2), y: Math.round(was.y - size.height) };
  return initialPlace(n, monitors, size);
}

/** The windows that should be open now: main's, then the pets', by preset id with their title. */
export function wantedWindows(kv: Store): { id: string; title: string; role: "main" | "pet" }[] {
  const names = new Map(listPresets(kv).map((p) => [p.id, p.name]));
  const main = activePresetId(kv);
  return [
    { id: main, title: names.get(main) ?? main, role: "main" as const },
    ...openPetIds(kv).map((id) => ({ id, title: names.get(id) ?? id, role: "pet" as const })),
  ];
}

export interface Desktop {
  /** The ids of the windows open now, main's first. */
  open(): string[];
  dispose(): void;
}

/** What startDesktop works with. */
export interface DesktopOptions {
  shell: ShellProcess;
  store: Store;
  hostUrl: string;
  /** A one-time launch URL of one of the host's pages (Host.launchUrl): each window opens signed in. */
  signIn(pageUrl: string): string;
  monitors: Monitor[];
  onQuit: () => void;
  /** The host moved a character window itself (reset position). */
  onPlaced?: (id: string, x: number, y: number) => void;
  /** Main's body makes room for a window of YUI's itself (room.ts RoomOptions.stepAside). */
  stepAside?: (id: string, x: number | null) => boolean | null;
}

/**
 * Opens the windows on a ready shell and keeps them in step with the store. Closing main's window quits
 * (`onQuit`); closing a pet's window closes that pet.
 */
export function startDesktop(opts: DesktopOptions): Desktop {
  const { shell, store } = opts;
  let monitors = opts.monitors;
  // id -> what the window shows (role and title), to open, retitle or reopen on change.
  const shown = new Map<string, { title: string; role: "main" | "pet" }>();
  // id -> the scale its window has (a change of the other manners resizes nothing).
  const scales = new Map<string, number>();
  let placed = 0;

  const sync = () => {
    const want = wantedWindows(store);
    const ids = new Set(want.map((w) => w.id));
    for (const id of [...shown.keys()]) {
      if (!ids.has(id)) {
        shown.delete(id);
        shell.send({ type: "close", id });
      }
    }
    for (const w of want) {
      const s = shown.get(w.id);
      if (s && s.role !== w.role) {
        // A pet became main (or back): its page changes role, so its window is opened anew.
        shell.send({ type: "close", id: w.id });
        shown.delete(w.id);
      } else if (s && s.title !== w.title) {
        shell.send({ type: "title", id: w.id, title: w.title });
        s.title = w.title;
      }
      if (!shown.has(w.id)) {
        shown.set(w.id, { title: w.title, role: w.role });
        scales.set(w.id, desktopSettings(store, w.id).scale);
        const size = windowSize(scales.get(w.id)!);
        shell.send({
          type: "open",
          id: w.id,
          title: w.title,
          url: opts.signIn(desktopUrl(opts.hostUrl, w.id, w.role)),
          ...size,
          ...openingPlace(store, w.id, placed++, monitors, size),
        });
        if (hidden) shell.send({ type: "visible", id: w.id, visible: false });
      }
    }
  };

  // Click-through per character window (on unless the user turned it off from her menu).
  const clickThroughOff = new Set<string>();
  // The tray's "Hide characters": windows opened meanwhile open hidden too.
  let hidden = false;
  const onMenu = (id: string, action: MenuAction) => {
    if (action === "quit") return opts.onQuit();
    if (action === "chat" || action === "settings" || action === "quick") {
      const page = PAGES[action];
      shell.send({
        type: "open",
        id: `page:${action}`,
        title: `YUI · ${page.title}`,
        url: opts.signIn(pageUrl(opts.hostUrl, page.view)),
        ...page.size,
        frame: true,
      });
      return;
    }
    if (action === "hide" || action === "show") {
      hidden = action === "hide";
      for (const w of shown.keys()) shell.send({ type: "visible", id: w, visible: !hidden });
      return;
    }
    // From the tray (id ""): every character window; from her menu: hers.
    const ids = id === "" ? [...shown.keys()] : shown.has(id) ? [id] : [];
    const size = SIZES.find((x) => `size-${x.id}` === action);
    if (size) {
      for (const w of ids)
        store.set(desktopSettingsKey(w), { ...desktopSettings(store, w), scale: size.scale }, "user");
    } else if (action === "reset-position") {
      for (const w of ids) {
        const at = initialPlace(
          [...shown.keys()].indexOf(w),
          monitors,
          windowSize(desktopSettings(store, w).scale),
        );
        if (!at) continue;
        shell.send({ type: "move", id: w, ...at });
        opts.onPlaced?.(w, at.x, at.y);
      }
    } else if (action === "click-through") {
      // The tray turns it off everywhere while any window has it on, else on everywhere.
      const off = ids.some((w) => !clickThroughOff.has(w));
      for (const w of ids) {
        if (off) clickThroughOff.add(w);
        else clickThroughOff.delete(w);
        shell.send({ type: "click-through", id: w, enabled: !off });
      }
    }
  };

  const offShell = shell.on((m) => {
    if (m.type === "monitors") monitors = m.monitors;
    // A pet's place, once the user's drag (or another move) settled: she comes back there after a restart.
    // (Main's body remembers hers itself: the point under her, her seat when she sits.)
    if ((m.type === "geometry" || m.type === "drag-end") && shown.get(m.id)?.role === "pet")
      rememberPlace(store, m.id, layoutOf(monitors), { x: m.x + m.width / 2, y: m.y + m.height });
    if (m.type === "menu") return onMenu(m.id, m.action);
    // The global shortcut opens main's input.
    if (m.type === "shortcut") {
      const main = [...shown].find(([, v]) => v.role === "main")?.[0];
      if (main) shell.send({ type: "input", id: main });
      return;
    }
    if (m.type !== "closed" || !shown.has(m.id)) return;
    clickThroughOff.delete(m.id);
    const role = shown.get(m.id)!.role;
    shown.delete(m.id);
    if (role === "main") opts.onQuit();
    else closePet(store, m.id, "user");
  });
  const offStore = store.onChange((c) => {
    if (c.key === PRESET_KEYS.list || c.key === PRESET_KEYS.open || c.key === PRESET_KEYS.active) sync();
    // Her size changed (Settings, her menu): her window follows, its bottom-centre kept.
    const id = /^yui\.(.+)\.desktop$/.exec(c.key)?.[1];
    const now = id && shown.has(id) ? DesktopSettingsSchema.safeParse(c.value) : null;
    if (id && now?.success && scales.get(id) !== now.data.scale) {
      scales.set(id, now.data.scale);
      shell.send({ type: "resize", id, ...windowSize(now.data.scale) });
    }
  });
  const room = createRoom({
    shell,
    isCharacter: (id) => shown.has(id),
    monitors: () => monitors,
    stepAside: opts.stepAside,
  });
  sync();
  return {
    open: () => [...shown.keys()],
    dispose() {
      room.dispose();
      offShell();
      offStore();
    },
  };
}
