/**
 * Test support: lets a test read the avatar stage of a page it drives (playwright-core). The page keeps its
 * stage to itself; createStage announces it with a STAGE_EVENT on its canvas, and this probe, installed before
 * the page's scripts run, keeps the latest one as `window.__yuiStage` for `page.evaluate`.
 */
import type { Page } from "playwright-core";
import { STAGE_EVENT } from "../../src/avatar/stage-event.ts";

/** Installs the probe on `page`; call it before `page.goto`. */
export async function probeStage(page: Page): Promise<void> {
  await page.addInitScript((name: string) => {
    document.addEventListener(
      name,
      (e) => {
        (window as unknown as { __yuiStage?: unknown }).__yuiStage = (e as CustomEvent).detail;
      },
      true,
    );
  }, STAGE_EVENT);
}
