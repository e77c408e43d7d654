/**
 * The desktop app's own pages (Chat, Settings, Quick controls, opened by the host with `&app=desktop`) in real
 * Chromium against the real host: no Phone tab, every tab keeps the mark, and Settings → Characters puts a
 * character on the desktop ("Put on desktop", then "Take off desktop"). The browser build's pages are the
 * positive control: the same host shows them a Phone tab and "Open as panel".
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PAGES } from "../host/desktop/desktop.ts";
import { type Host, startHost } from "../host/server/server.ts";
import { characterPreset } from "../src/app/presets/preset.ts";
import { openPetIds, savePreset } from "../src/app/presets/presets.ts";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../tools/testing/chromium.ts";

let browser: Browser;
let host: Host;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "yui-desktop-pages-"));
  host = await startHost({ port: 0, dataDir, env: {}, browserCommands: false });
  savePreset(host.store, characterPreset("mika", "Mika"));
  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await host?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function open(query: string): Promise<Page> {
  const page = await browser.newPage();
  await page.goto(host.launchUrl(`${host.url}?${query}&stage=off`));
  await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 60_000 });
  return page;
}

const tabs = (page: Page) =>
  page.locator("nav .tabs a").evaluateAll((as) => as.map((a) => [a.textContent, a.getAttribute("href")]));

describe("the desktop app's pages", () => {
  it("have no Phone tab, and their tabs stay the desktop app's", async () => {
    for (const { view } of Object.values(PAGES)) {
      const page = await open(`view=${view}&app=desktop`);
      expect(await tabs(page)).toEqual([
        ["Chat", "?view=main&app=desktop"],
        ["Settings", "?view=settings&app=desktop"],
        ["Quick controls", "?view=quick&app=desktop"],
      ]);
      // `?view=phone` in the desktop app is its Chat page.
      await page.close();
    }
    const phone = await open("view=phone&app=desktop");
    expect(await phone.locator("nav .tab.active").textContent()).toBe("Chat");
    await phone.close();
    // The control: the browser build's pages have the Phone tab.
    const browserBuild = await open("view=main");
    expect((await tabs(browserBuild)).map(([label]) => label)).toEqual([
      "Chat",
      "Settings",
      "Quick controls",
      "Phone",
    ]);
    await browserBuild.close();
  });

  it('Settings puts a character on the desktop with "Put on desktop"', async () => {
    const settings = await open("view=settings&app=desktop");
    const button = settings.getByTestId("open-mika");
    await expect.poll(() => button.textContent()).toBe("Put on desktop");
    await button.click();
    await expect.poll(() => openPetIds(host.store)).toContain("mika");
    await expect.poll(() => button.textContent()).toBe("Take off desktop");
    await button.click();
    await expect.poll(() => openPetIds(host.store)).not.toContain("mika");
    await settings.close();
    // The browser build opens her as a panel in its Chat page, and says so.
    const browserBuild = await open("view=settings");
    await expect.poll(() => browserBuild.getByTestId("open-mika").textContent()).toBe("Open as panel");
    await browserBuild.close();
  });
});
