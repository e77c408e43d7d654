/**
 * The Electron shell's preload (docs/electron.md), run in every window before the page, in an isolated world:
 * it gives the page the same bridge WebKitGTK gives it on Linux, `window.webkit.messageHandlers.yui
 * .postMessage(json)`, and reports the pointer to main.ts, which hit-tests it against her shape (click-through)
 * and drags her window. The shell answers the page through `window.__yuiShell(message)`, which main.ts calls
 * in the page's own world (`executeJavaScript`).
 */
import { contextBridge, ipcRenderer } from "electron";
import { CHANNELS, type PagePointer } from "./channels.ts";

contextBridge.exposeInMainWorld("webkit", {
  messageHandlers: {
    yui: {
      postMessage(message: unknown): void {
        ipcRenderer.send(CHANNELS.page, typeof message === "string" ? message : JSON.stringify(message));
      },
    },
  },
});

const pointer = (kind: PagePointer["kind"], e: MouseEvent) => {
  const m: PagePointer = { kind, x: e.clientX, y: e.clientY, button: e.button };
  ipcRenderer.send(CHANNELS.pointer, m);
};

// While click-through is on the window ignores the mouse but still gets its moves (forward: true), so the
// moves say when the pointer comes over her shape and the window must take the click.
addEventListener("mousemove", (e) => pointer("move", e), true);
addEventListener("mousedown", (e) => pointer("down", e), true);
addEventListener("mouseup", (e) => pointer("up", e), true);
addEventListener(
  "mouseout",
  (e) => {
    if (!e.relatedTarget) pointer("leave", e);
  },
  true,
);

// A drag ends with a release on her: the page must not take it as a click (a click opens her input).
let swallow = false;
ipcRenderer.on(CHANNELS.swallowClick, () => {
  swallow = true;
});
addEventListener("mousedown", () => {
  swallow = false;
});
addEventListener(
  "click",
  (e) => {
    if (!swallow) return;
    swallow = false;
    e.preventDefault();
    e.stopImmediatePropagation();
  },
  true,
);
