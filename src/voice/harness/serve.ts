import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { createServer, type ViteDevServer } from "vite";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../../../tools/testing/chromium.ts";

// Node side of the voice harness: Vite serves the page on 127.0.0.1 and proxies /api to a real host, so the
// page reaches the voice route from its own origin; Chromium plays the audio headless.

const here = dirname(fileURLToPath(import.meta.url));

export interface VoiceHarness {
  page: Page;
  browser: Browser;
  server: ViteDevServer;
  close(): Promise<void>;
}

/**
 * Starts Vite (proxying /api to the host) and Chromium, and opens the page with window.voice ready. The proxy
 * stands in for the host's own page: it sends the host's origin and its launch secret with every request.
 */
export async function startVoiceHarness(host: { url: string; secret: string }): Promise<VoiceHarness> {
  const target = host.url.replace(/\/$/, "");
  const server = await createServer({
    configFile: false,
    root: here,
    logLevel: "error",
    clearScreen: false,
    server: {
      host: "127.0.0.1",
      port: 0,
      strictPort: false,
      hmr: false,
      proxy: { "/api": { target, headers: { origin: target, "x-yui-secret": host.secret } } },
    },
  });
  await server.listen();
  const address = server.httpServer?.address();
  if (!address || typeof address === "string") throw new Error("vite did not bind a TCP port");
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_ARGS, "--autoplay-policy=no-user-gesture-required"],
      headless: true,
    });
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${address.port}/`);
    await page.waitForFunction(() => document.title === "voice ready", null, { timeout: 60_000 });
    const b = browser;
    return {
      page,
      browser: b,
      server,
      async close() {
        await b.close();
        await server.close();
      },
    };
  } catch (err) {
    await browser?.close();
    await server.close();
    throw err;
  }
}
