import { mkdir, readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import sharp from "sharp";
import {
  droppedShotsNote,
  MAX_SCREENSHOTS,
  SCREENSHOT_MAX_EDGE,
  unreadableShotsNote,
} from "../../src/io/browser/results.ts";

/** Every per-call screenshot folder's name starts with this. */
export const SHOT_FOLDER_PREFIX = "yui-browser-";

let folderCounter = 0;
/** This process's folders whose call is still running (created, not yet collected). */
const liveFolders = new Set<string>();

/** Creates this call's screenshot folder, yui-browser-<pid>-<nanos>-<counter>, directly under tmpDir. */
export async function createShotFolder(tmpDir: string): Promise<string> {
  // Wall-clock nanoseconds: milliseconds since the epoch refined by the monotonic clock's sub-millisecond part.
  const nanos = BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
  folderCounter += 1;
  // The prelude needs an absolute path: the script runs in ego lite, not in our working directory.
  const folder = join(resolve(tmpDir), `${SHOT_FOLDER_PREFIX}${process.pid}-${nanos}-${folderCounter}`);
  await mkdir(folder, { mode: 0o700 });
  liveFolders.add(folder);
  return folder;
}

/**
 * A JPEG data URL of one image, its long edge scaled down to maxEdge (never up). Rejects when it does not decode.
 * Transparency is flattened onto white (JPEG has none; dropped alpha would read as black); the cubic filter keeps
 * text sharp and costs less than the default Lanczos.
 */
export async function encodeScreenshot(
  input: string | Buffer,
  maxEdge = SCREENSHOT_MAX_EDGE,
): Promise<string> {
  const jpeg = await sharp(input)
    .flatten({ background: "#ffffff" })
    .resize({ width: maxEdge, height: maxEdge, fit: "inside", withoutEnlargement: true, kernel: "cubic" })
    .jpeg({ quality: 80 })
    .toBuffer();
  return `data:image/jpeg;base64,${jpeg.toString("base64")}`;
}

/** What a run's screenshot folder yielded. */
export interface CollectedShots {
  images: string[];
  /** Earlier screenshots left out by the cap of 4. */
  dropped: number;
  /** Files among the kept ones that did not decode, by name. */
  unreadable: string[];
}

/**
 * Reads a run's screenshot folder in file-name order, encodes the last 4 as JPEG data URLs, and deletes the folder.
 * A missing folder yields no images; undecodable files are skipped and named.
 */
export async function collectScreenshots(
  folder: string,
  opts: { maxShots?: number; maxEdge?: number } = {},
): Promise<CollectedShots> {
  const maxShots = opts.maxShots ?? MAX_SCREENSHOTS;
  try {
    let names: string[];
    try {
      const entries = await readdir(folder, { withFileTypes: true });
      names = entries.filter((e) => e.isFile()).map((e) => e.name);
    } catch {
      return { images: [], dropped: 0, unreadable: [] };
    }
    // Byte order, not locale order: 001.png ... 010.png sort as the prelude numbers them.
    names.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const kept = names.slice(-maxShots);
    const encoded = await Promise.all(
      kept.map((name) =>
        encodeScreenshot(join(folder, name), opts.maxEdge).then(
          (url) => ({ name, url }),
          () => ({ name, url: undefined }),
        ),
      ),
    );
    return {
      images: encoded.flatMap((e) => (e.url ? [e.url] : [])),
      dropped: names.length - kept.length,
      unreadable: encoded.flatMap((e) => (e.url ? [] : [e.name])),
    };
  } finally {
    await rm(folder, { recursive: true, force: true }).catch(() => undefined);
    liveFolders.delete(folder);
  }
}

/** The result's screenshot notes: the dropped count and the unreadable names, each only when non-zero. */
export function screenshotNotes(shots: Pick<CollectedShots, "dropped" | "unreadable">): string[] {
  const notes: string[] = [];
  if (shots.dropped > 0) notes.push(droppedShotsNote(shots.dropped));
  if (shots.unreadable.length > 0) notes.push(unreadableShotsNote(shots.unreadable));
  return notes;
}

const FOLDER_NAME = /^yui-browser-(\d+)-\d+-\d+$/;

/** Whether a process with this pid exists (EPERM: it does, owned by someone else). */
export function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether a yui-browser-* folder is a leftover: its owning process (the pid in its name) is gone, or it is this
 * process's and no call of ours holds it. Another live YUI process's folder (the app beside a `yui chat`, two
 * hosts) is never a leftover. A name without the pid pattern has no owner to protect.
 */
export function isLeftoverShotFolder(name: string, folder: string): boolean {
  const m = FOLDER_NAME.exec(name);
  if (!m) return true;
  const pid = Number(m[1]);
  if (pid === process.pid) return !liveFolders.has(folder);
  return !processAlive(pid);
}

/**
 * Deletes the leftover yui-browser-* folders under tmpDir (run at host start; isLeftoverShotFolder); returns how
 * many went.
 */
export async function removeLeftoverShotFolders(tmpDir: string): Promise<number> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(tmpDir, { withFileTypes: true });
  } catch {
    return 0;
  }
  const leftovers = entries.filter(
    (e) =>
      e.isDirectory() &&
      e.name.startsWith(SHOT_FOLDER_PREFIX) &&
      isLeftoverShotFolder(e.name, join(resolve(tmpDir), e.name)),
  );
  await Promise.all(leftovers.map((e) => rm(join(tmpDir, e.name), { recursive: true, force: true })));
  return leftovers.length;
}
