/** Debian's Chromium as the browser tests drive it (playwright-core). */

export const CHROMIUM_PATH = "/usr/bin/chromium";

/** Flags for headless WebGL through SwiftShader, as root, with no background traffic. */
export const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--use-gl=angle",
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
  "--disable-background-networking",
  "--disable-component-update",
  "--no-first-run",
];
