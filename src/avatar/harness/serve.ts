import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium, type Page } from "playwright-core";
import { createServer, type ViteDevServer } from "vite";
import { CHROMIUM_ARGS } from "../../../tools/testing/chromium.ts";

// Node side of the harness: serves the harness page with Vite on 127.0.0.1 and drives it in Debian's
// Chromium (SwiftShader WebGL). Shared by the browser tests and bench/stage.ts.

const here = dirname(fileURLToPath(import.meta.url));

export { CHROMIUM_ARGS };

/** Repository root. */
export const REPO = resolve(here, "../../..");
/**
 * The third-party VRM samples beside the clone (read in place, never copied): the interop suite's only
 * (`npm run test:interop`); `npm test` runs on the models tools/vrm-gen generates.
 */
export const FIXTURES = resolve(REPO, "../shared/fixtures/vrm");

/** A running harness: the Vite server, the browser, and a page with window.harness ready. */
export interface Harness {
  url: string;
  server: ViteDevServer;
  browser: Browser;
  page: Page;
  /** URL under which the server serves an absolute file path (fixtures, generated models). */
  fileUrl(path: string): string;
  close(): Promise<void>;
}

/** Starts Vite and Chromium and opens the harness page; `allow` lists extra folders the page may fetch. */
export async function startHarness(allow: string[] = []): Promise<Harness> {
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
      fs: { allow: [REPO, ...allow] },
    },
    // Pre-bundle up front so the page never reloads mid-test to optimize a late dependency.
    optimizeDeps: {
      include: [
        "three",
        "@pixiv/three-vrm",
        "@pixiv/three-vrm-animation",
        "three/examples/jsm/loaders/GLTFLoader.js",
      ],
    },
  });
  await server.listen();
  const address = server.httpServer?.address();
  if (!address || typeof address === "string") throw new Error("vite did not bind a TCP port");
  const url = `http://127.0.0.1:${address.port}/`;
  let browser: Browser | null = null;
  try {
    browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      args: CHROMIUM_ARGS,
      headless: true,
    });
    const page = await browser.newPage({ viewport: { width: 480, height: 640 } });
    await page.goto(url);
    await page.waitForFunction(() => document.title === "harness ready", null, { timeout: 90_000 });
    const b = browser;
    return {
      url,
      server,
      browser: b,
      page,
      fileUrl: (path) => `${url}@fs${resolve(path)}`,
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
