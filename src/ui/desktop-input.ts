/**
 * Her input in the desktop view: the panel's composer beside her, opened by a click on her (not on the space
 * around her) or by the shell (the global shortcut), put away by Escape, after sending, or by a click elsewhere in
 * her window (anywhere but the input and her: the bubble, say). Not on her window losing the keyboard focus: in the
 * GTK shell under openbox her window loses it right after the click on her that opens the input (docs/desktop.md).
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
    if (on === isOpen()) {
      if (on) parts.input.focus();
      return;
    }
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
  // A press anywhere in her window but the input and her puts it away (a press on her toggles it on its click).
  const onPress = (e: PointerEvent) => {
    if (!isOpen() || parts.form.contains(e.target as Node)) return;
    if (parts.stageBox.contains(e.target as Node) && o.onHer(e.clientX, e.clientY)) return;
    set(false);
  };
  document.addEventListener("pointerdown", onPress, true);
  return {
    open: () => set(true),
    isOpen,
    dispose() {
      document.removeEventListener("pointerdown", onPress, true);
    },
  };
}
