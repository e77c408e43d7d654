import { homedir, platform } from "node:os";
import { join } from "node:path";

/** Where YUI keeps the user's data: YUI_DATA_DIR, else the platform's convention (XDG, Application Support). */
export function dataDir(env: NodeJS.ProcessEnv = process.env, os: NodeJS.Platform = platform()): string {
  if (env.YUI_DATA_DIR) return env.YUI_DATA_DIR;
  const home = env.HOME || homedir();
  if (os === "darwin") return join(home, "Library", "Application Support", "YUI");
  if (os === "win32") return join(env.APPDATA || join(home, "AppData", "Roaming"), "YUI");
  return join(env.XDG_DATA_HOME || join(home, ".local", "share"), "yui");
}
