import { mkdir, readdir, rm } from "node:fs/promises";
import { join, resolve } from "node:path";
import sharp from "sharp";
import {
  droppedShotsNote,
  MAX_SCREENSHOTS,
  SCREENSHOT_MAX_EDGE,
  unreadableShotsNote,
} from "../../src/io/chat/tools/browser/results.ts";

/** Every per-call screenshot folder's name starts with this. */
export const SHOT_FOLDER_PREFIX = "yui-browser-";

let folderCounter = 0;

/** Creates this call's screenshot folder, yui-browser-<pid>-<nanos>-<counter>, directly under tmpDir. */
export async function createShotFolder(tmpDir: string): Promise<string> {
  // Wall-clock nanoseconds: milliseconds since the epoch refined by the monotonic clock's sub-millisecond part.
  const nanos = BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n);
  folderCounter += 1;
  // The prelude needs an absolute path: the script runs in ego lite, not in our working directory.
  const folder = join(resolve(tmpDir), `${SHOT_FOLDER_PREFIX}${process.pid}-${nanos}-${folderCounter}`);
  await mkdir(folder, { mode: 0o700 });
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
  }
}

/** The result's screenshot notes: the dropped count and the unreadable names, each only when non-zero. */
export function screenshotNotes(shots: Pick<CollectedShots, "dropped" | "unreadable">): string[] {
  const notes: string[] = [];
  if (shots.dropped > 0) notes.push(droppedShotsNote(shots.dropped));
  if (shots.unreadable.length > 0) notes.push(unreadableShotsNote(shots.unreadable));
  return notes;
}

/** Deletes every leftover yui-browser-* folder under tmpDir (run at host start); returns how many went. */
export async function removeLeftoverShotFolders(tmpDir: string): Promise<number> {
  let entries: import("node:fs").Dirent[];
  try {
    entries = await readdir(tmpDir, { withFileTypes: true });
  } catch {
    return 0;
  }
  const leftovers = entries.filter((e) => e.isDirectory() && e.name.startsWith(SHOT_FOLDER_PREFIX));
  await Promise.all(leftovers.map((e) => rm(join(tmpDir, e.name), { recursive: true, force: true })));
  return leftovers.length;
}
