/**
 * How the host starts the Electron shell (docs/electron.md): main.ts and preload.ts are bundled with esbuild
 * (the one tsx runs on) into `.cache/electron-shell/` as CommonJS, which Electron's main process and a
 * sandboxed preload load as they are, with a package.json that names the app YUI; then Electron runs that
 * directory. Runs in the host (Node), never inside Electron.
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildSync } from "esbuild";

const HERE = dirname(fileURLToPath(import.meta.url));
const REPO = resolve(HERE, "../..");

/** Where the bundle goes (ignored by git, like the rest of .cache/). */
export const ELECTRON_BUNDLE_DIR = join(REPO, ".cache", "electron-shell");

/** The app's package.json inside the bundle: Electron takes the app's name (and its data directory's) from it. */
export const BUNDLE_PACKAGE = {
  name: "yui-shell",
  productName: "YUI",
  private: true,
  main: "main.cjs",
} as const;

/** Bundles the shell into `outDir`: main.cjs, preload.cjs, package.json, bubble/. Only `electron` and Node's own modules stay imports. */
export function bundleElectronShell(outDir: string = ELECTRON_BUNDLE_DIR): {
  dir: string;
  main: string;
  preload: string;
} {
  mkdirSync(outDir, { recursive: true });
  buildSync({
    entryPoints: { main: join(HERE, "main.ts"), preload: join(HERE, "preload.ts") },
    outdir: outDir,
    outExtension: { ".js": ".cjs" },
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    external: ["electron"],
    logLevel: "silent",
  });
  writeFileSync(join(outDir, "package.json"), `${JSON.stringify(BUNDLE_PACKAGE, null, 2)}\n`);
  // Her bubble's window's document (shell/bubble/), loaded from the bundle's own directory.
  cpSync(join(HERE, "..", "bubble"), join(outDir, "bubble"), { recursive: true });
  return { dir: outDir, main: join(outDir, "main.cjs"), preload: join(outDir, "preload.cjs") };
}

/**
 * The Electron binary of node_modules/electron. Its binary is fetched on first use when `npm ci` skipped it
 * (ELECTRON_SKIP_BINARY_DOWNLOAD); an Error saying what to do when that fails.
 */
export function electronBinary(): string {
  try {
    const path = createRequire(import.meta.url)("electron") as unknown;
    if (typeof path !== "string") throw new Error("node_modules/electron did not give a path");
    return path;
  } catch (e) {
    throw new Error(
      `the desktop shell needs Electron's binary (${(e as Error).message.split("\n")[0]}): run \`npx install-electron\`, or start the browser build with \`yui serve\``,
    );
  }
}

/** The command that runs the Electron shell: bundles it, then `electron <bundle dir>`. */
export function electronShellArgv(outDir: string = ELECTRON_BUNDLE_DIR): string[] {
  const { dir } = bundleElectronShell(outDir);
  return [electronBinary(), dir];
}
