/**
 * Her input in the desktop view: the panel's composer beside her, opened by a click on her (not on the space
 * around her) or by the shell (the global shortcut), put away by Escape or after sending.
 */
import type { Panel } from "./panel.ts";

/** Opens and closes her input in `box` (its `input-open` class); `changed` runs after each change. */
export function herInput(o: {
  box: HTMLElement;
  parts: Panel["parts"];
  onHer: (x: number, y: number) => boolean;
  /** A click on her (also pokes her body). */
  clicked: () => void;
  changed: () => void;
}) {
  const { box, parts } = o;
  const isOpen = () => box.classList.contains("input-open");
  const set = (on: boolean) => {
    box.classList.toggle("input-open", on);
    if (on) parts.input.focus();
    o.changed();
  };
  parts.stageBox.addEventListener("click", (e) => {
    if (!o.onHer(e.clientX, e.clientY)) return;
    set(!isOpen());
    o.clicked();
  });
  parts.input.addEventListener("keydown", (e) => {
    if (e.key === "Escape") set(false);
  });
  // The panel's own submit handler sends (registered first); this one puts the input away.
  parts.form.addEventListener("submit", () => set(false));
  return { open: () => set(true), isOpen };
}
