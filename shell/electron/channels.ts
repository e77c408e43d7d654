/** The IPC channels between the preload (in each page) and main.ts. */
export const CHANNELS = {
  /** Page → main: the JSON string the page gave `webkit.messageHandlers.yui.postMessage` (PageToShell). */
  page: "yui:page",
  /** Preload → main: a pointer event in window pixels (logic.ts PointerEvent without cursor and win). */
  pointer: "yui:pointer",
  /** Main → preload: she is being dragged; the coming release is not a click on her. */
  swallowClick: "yui:swallow-click",
} as const;

/** What the preload sends on CHANNELS.pointer. */
export interface PagePointer {
  kind: "move" | "down" | "up" | "leave";
  x: number;
  y: number;
  button: number;
}
