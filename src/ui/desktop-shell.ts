/**
 * The desktop view's link to the shell around its window (docs/desktop.md "The shell contract", page ↔ shell):
 * messages out through the script message handler `yui`, messages in through `window.__yuiShell`, both typed
 * by the contract (src/protocol/shell.ts). In an ordinary browser there is no shell: sending does nothing.
 */
import {
  PAGE_HANDLER,
  PAGE_RECEIVER,
  type PageToShell,
  type ShellToPage,
  ShellToPageSchema,
} from "../protocol/shell.ts";

/** What the page says to its shell. */
export interface ShellLink {
  send(m: PageToShell): void;
}

interface ShellWindow {
  webkit?: { messageHandlers?: Record<string, { postMessage(m: string): void } | undefined> };
}

/**
 * Opens the link: `on` hears each message the shell sends (one that does not parse is dropped), and the shell
 * is greeted (`hello`), so it answers with what it is even when its first word came before the page was ready.
 */
export function linkShell(on: (m: ShellToPage) => void): ShellLink {
  const send = (m: PageToShell) =>
    (window as ShellWindow).webkit?.messageHandlers?.[PAGE_HANDLER]?.postMessage(JSON.stringify(m));
  // The contract's way in: the shell runs `window.__yuiShell(message)` in the page.
  Object.defineProperty(window, PAGE_RECEIVER, {
    configurable: true,
    value: (raw: unknown) => {
      const m = ShellToPageSchema.safeParse(raw);
      if (m.success) on(m.data);
    },
  });
  send({ type: "hello" });
  return { send };
}
