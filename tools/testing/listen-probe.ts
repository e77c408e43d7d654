/**
 * Test support: lets a test or bench:listen read the listening of a page it drives (playwright-core). The page
 * keeps its listening to itself; each panel announces it with a LISTEN_EVENT on its indicator, and this probe,
 * installed before the page's scripts run, keeps the latest one per character as `window.__yuiListen[presetId]`
 * (`{ state, timeline }`, the timeline live) for `page.evaluate`.
 */
import type { Page } from "playwright-core";
import { LISTEN_EVENT } from "../../src/voice/listen/listen-event.ts";
import type { ListenEvent, ListenState } from "../../src/voice/listen/listening.ts";

/** What the probe keeps per character. */
export interface ListenProbe {
  state: ListenState;
  timeline: ListenEvent[];
}

/** Installs the probe on `page`; call it before `page.goto`. */
export async function probeListen(page: Page): Promise<void> {
  await page.addInitScript((name: string) => {
    const w = window as unknown as { __yuiListen: Record<string, unknown> };
    w.__yuiListen = {};
    document.addEventListener(
      name,
      (e) => {
        const d = (e as CustomEvent<{ presetId: string; state: string; timeline: unknown[] }>).detail;
        w.__yuiListen[d.presetId] = { state: d.state, timeline: d.timeline };
      },
      true,
    );
  }, LISTEN_EVENT);
}

/** The listening of `presetId` in `page` as the probe last heard it (none yet: off, an empty timeline). */
export function listenOf(page: Page, presetId: string): Promise<ListenProbe> {
  return page.evaluate(
    (id) =>
      (window as unknown as { __yuiListen?: Record<string, ListenProbe> }).__yuiListen?.[id] ?? {
        state: "off" as const,
        timeline: [],
      },
    presetId,
  );
}
