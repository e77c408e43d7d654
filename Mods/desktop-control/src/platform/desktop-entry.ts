// Finds and reads freedesktop.org desktop entries (*.desktop) so open_app can launch an app by its
// menu name, the way a desktop's launcher does, without a shell: Exec is split into argv here.
import { readdir, readFile } from "node:fs/promises";
import { homedir } from "node:os";
import path from "node:path";
import { sameApp } from "../allowlist.ts";

/** What open_app / close_app need of an entry. */
export interface DesktopEntry {
  id: string;
  name: string;
  argv: string[];
  wmClass: string | null;
}

/** Parses the [Desktop Entry] group of a .desktop file; null unless it is a launchable Application. */
export function parseDesktopEntry(id: string, text: string): DesktopEntry | null {
  const fields = new Map<string, string>();
  let inGroup = false;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("[")) {
      inGroup = line === "[Desktop Entry]";
      continue;
    }
    if (!inGroup || line.startsWith("#")) continue;
    const eq = line.indexOf("=");
    if (eq > 0) fields.set(line.slice(0, eq).trim(), line.slice(eq + 1).trim());
  }
  if (fields.get("Type") !== "Application" || fields.get("Hidden") === "true") return null;
  const exec = fields.get("Exec");
  const name = fields.get("Name");
  if (!exec || !name) return null;
  const argv = splitExec(exec);
  if (!argv || argv.length === 0) return null;
  return { id, name, argv, wmClass: fields.get("StartupWMClass") ?? null };
}

/** Splits an Exec value into argv per the Desktop Entry spec: double quotes group, field codes (%f, %U, ...)
 *  are dropped since nothing is opened with the app, %% is a percent. null when the quoting is broken. */
export function splitExec(exec: string): string[] | null {
  // The .desktop string escapes (\s \n \t \r \\) apply first, then the Exec quoting rules.
  const value = exec.replace(/\\([sntr\\])/g, (_m, c: string) =>
    c === "s" ? " " : c === "n" ? "\n" : c === "t" ? "\t" : c === "r" ? "\r" : "\\",
  );
  const args: string[] = [];
  let cur = "";
  let has = false;
  let quoted = false;
  for (let i = 0; i < value.length; i++) {
    const c = value[i]!;
    if (quoted) {
      if (c === "\\" && i + 1 < value.length && '"`$\\'.includes(value[i + 1]!)) cur += value[++i];
      else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') {
      quoted = true;
      has = true;
    } else if (c === " " || c === "\t") {
      if (has) args.push(cur);
      cur = "";
      has = false;
    } else if (c === "%") {
      const code = value[++i];
      if (code === "%") {
        cur += "%";
        has = true;
      }
      // Any other field code expands to nothing: open_app passes no files, URLs or icons.
    } else {
      cur += c;
      has = true;
    }
  }
  if (quoted) return null;
  if (has) args.push(cur);
  return args;
}

/** The applications/ directories in XDG precedence order (user first). */
export function applicationDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  const dataHome = env.XDG_DATA_HOME || path.join(env.HOME || homedir(), ".local", "share");
  const dataDirs = (env.XDG_DATA_DIRS || "/usr/local/share:/usr/share").split(":").filter(Boolean);
  return [dataHome, ...dataDirs].map((d) => path.join(d, "applications"));
}

/** The first entry (XDG precedence) whose file id, Name or StartupWMClass is `name` by the allowlist's rules. */
export async function findDesktopEntry(name: string, dirs: readonly string[]): Promise<DesktopEntry | null> {
  for (const dir of dirs) {
    let files: string[];
    try {
      files = (await readdir(dir)).filter((f) => f.endsWith(".desktop")).sort();
    } catch {
      continue;
    }
    for (const file of files) {
      const id = file.slice(0, -".desktop".length);
      let text: string;
      try {
        text = await readFile(path.join(dir, file), "utf8");
      } catch {
        continue;
      }
      const entry = parseDesktopEntry(id, text);
      if (!entry) continue;
      if (sameApp(id, name) || sameApp(entry.name, name) || (entry.wmClass && sameApp(entry.wmClass, name))) {
        return entry;
      }
    }
  }
  return null;
}
