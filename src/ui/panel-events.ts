/**
 * What a panel tells the view around it (the desktop view's bubble, docs/desktop.md): a turn running, the reply
 * of the turn playing now as it streams, that reply's end, a message the user sent, and her listening state. Typed by name, so a
 * follower reads the panel's words, never its DOM.
 */

import type { ListenState } from "../voice/listen/listening.ts";

/** The panel's events and what each carries. */
export interface PanelEvents {
  /** A turn started (true) or ended (false). */
  busy: boolean;
  /** The reply of the turn playing now, as shown so far: "" as it starts, then after each piece of text. */
  reply: string;
  /**
   * That reply ended: its final words (the error in plain words, "(stopped)", "(no reply)"), or null when the
   * turn did not run and left no reply.
   */
  "reply-end": string | null;
  /** That reply failed: the error in plain words (errors.ts), sent before its `reply-end`. */
  error: string;
  /** The user sent a message (its text, trimmed). */
  sent: string;
  /** Her listening changed state (`off`, `listening`, `hearing`, `talking`…: panel-listen.ts). */
  listening: ListenState;
}

export type PanelEventName = keyof PanelEvents;
export type PanelListener<K extends PanelEventName> = (value: PanelEvents[K]) => void;

/** Follows one of the panel's events; returns what stops following. */
export type PanelOn = <K extends PanelEventName>(name: K, f: PanelListener<K>) => () => void;

/** The panel's side: `emit` to its followers, `on` for the view around it. */
export function createPanelEvents(): {
  on: PanelOn;
  emit<K extends PanelEventName>(name: K, v: PanelEvents[K]): void;
} {
  const followers: { [K in PanelEventName]: Set<PanelListener<K>> } = {
    busy: new Set(),
    reply: new Set(),
    "reply-end": new Set(),
    error: new Set(),
    sent: new Set(),
    listening: new Set(),
  };
  return {
    on(name, f) {
      followers[name].add(f);
      return () => {
        followers[name].delete(f);
      };
    },
    emit(name, v) {
      for (const f of followers[name]) f(v);
    },
  };
}
