import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

const CLI_NAME = "ego-browser";

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

async function isExecutableFile(path: string): Promise<boolean> {
  if (!(await isFile(path))) return false;
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Finds the ego lite CLI: ~/.local/bin/ego-browser first, then the first executable on PATH; null when in neither.
 * The home copy counts as soon as it exists, so a broken install there answers "failed to start", not "not found".
 */
export async function locateEgoBrowser(env: NodeJS.ProcessEnv = process.env): Promise<string | null> {
  const home = env.HOME || homedir();
  const local = join(home, ".local", "bin", CLI_NAME);
  if (await isFile(local)) return local;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    // An empty PATH entry means the working directory; never run a binary from there.
    if (!dir) continue;
    const candidate = join(dir, CLI_NAME);
    if (await isExecutableFile(candidate)) return candidate;
  }
  return null;
}
