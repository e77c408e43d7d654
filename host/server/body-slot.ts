/**
 * Where main's avatar executor is held in the host (docs/body.md "The avatar executor"). A desktop (the shell
 * and the window model, host/desktop/) provides bodies; main's desktop window attaches one for its preset
 * through the bridge command `body_attach` and holds it while that call runs. The engine's body_action and
 * look (over the bridge from the page, or in process for `yui chat`) and the ingress's avatar routes all reach
 * the body attached now, or hear the spec's answer for a missing executor.
 */

import type { AvatarExecutor, BodyActionResult } from "../../src/protocol/body.ts";
import type { CommandTable } from "../commands.ts";

/** A body a desktop built for one preset's window; `dispose` ends it (the window let go). */
export interface AttachedBody extends AvatarExecutor {
  readonly presetId: string;
  /** A click on her or a message from the user. */
  poke(): void;
  /** Main's page says she dozes or woke: her moves of her own pause or resume (DesktopBodies.setWandering). */
  rest?(dozing: boolean): void;
  dispose(): void;
}

/** What a desktop offers: a body for a preset's window, or null when that window is not on the desktop. */
export interface BodyProvider {
  attach(presetId: string): AttachedBody | null;
}

export interface BodySlot {
  /** Offers the desktop's bodies (null: no desktop, `body_attach` answers unsupported). */
  provide(provider: BodyProvider | null): void;
  /** The executor attached now, or null. */
  current(): AttachedBody | null;
  /** Attaches main's body for presetId until `signal` aborts; `detached` when it ends, `unsupported` at once. */
  hold(presetId: string, signal: AbortSignal): Promise<"detached" | "unsupported">;
  /** Calls fn whenever the attached executor changes (attached, replaced, let go). */
  onChange(fn: (body: AttachedBody | null) => void): () => void;
}

/** Creates the host's empty slot. */
export function createBodySlot(): BodySlot {
  let provider: BodyProvider | null = null;
  let body: AttachedBody | null = null;
  // Ends the current hold (the `body_attach` call of the window holding it).
  let release: (() => void) | null = null;
  const listeners = new Set<(b: AttachedBody | null) => void>();
  const set = (b: AttachedBody | null) => {
    body = b;
    for (const fn of [...listeners]) fn(b);
  };
  const letGo = () => {
    const r = release;
    release = null;
    body?.dispose();
    set(null);
    r?.();
  };
  return {
    provide(p) {
      letGo();
      provider = p;
    },
    current: () => body,
    hold(presetId, signal) {
      if (!provider || signal.aborted) return Promise.resolve("unsupported");
      const attached = provider.attach(presetId);
      if (!attached) return Promise.resolve("unsupported");
      // One body: a newer main (a reloaded page, the active character switched) takes over.
      letGo();
      return new Promise((resolve) => {
        const onAbort = () => {
          if (release === mine) letGo();
        };
        const mine = () => {
          signal.removeEventListener("abort", onAbort);
          resolve("detached");
        };
        release = mine;
        signal.addEventListener("abort", onAbort, { once: true });
        set(attached);
      });
    },
    onChange(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

/** The spec's answer for a missing executor: body_action's bare word (look's `error: unsupported` is the tool's). */
const NO_EXECUTOR: BodyActionResult = "unsupported";

/** What body_screen fails with while the screen capture switch is off (the look tool: `error: screen capture is off`). */
export const SCREEN_OFF = "screen capture is off";

/**
 * The bridge commands over the slot (src/protocol/commands.ts: body_*). `screenOn` reads yui.screen_capture at
 * each body_screen: the host, which takes the picture, decides (whatever window asks, private windows and all).
 */
export function registerBodyCommands(table: CommandTable, slot: BodySlot, screenOn: () => boolean): void {
  table.register("body_attach", async ({ presetId }, opts) => {
    return slot.hold(presetId, opts?.signal ?? new AbortController().signal);
  });
  table.register("body_action", async (a, opts) => {
    const body = slot.current();
    if (!body) return NO_EXECUTOR;
    return body.bodyAction(a, opts?.signal ?? new AbortController().signal);
  });
  table.register("body_read", async ({ at }) => {
    const body = slot.current();
    if (!body) throw new Error(NO_EXECUTOR);
    return at === "body" ? body.bodyState() : body.perchTargets();
  });
  table.register("body_screen", async ({ monitor }) => {
    if (!screenOn()) throw new Error(SCREEN_OFF);
    const body = slot.current();
    if (!body) throw new Error(NO_EXECUTOR);
    return body.screenshot(monitor);
  });
  table.register("body_poke", async () => {
    slot.current()?.poke();
    return null;
  });
  table.register("body_rest", async ({ presetId, dozing }) => {
    const body = slot.current();
    if (body?.presetId === presetId) body.rest?.(dozing);
    return null;
  });
}
