import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { droppedShotsNote, unreadableShotsNote } from "../../src/io/browser/results.ts";
import {
  collectScreenshots,
  createShotFolder,
  removeLeftoverShotFolders,
  SHOT_FOLDER_PREFIX,
  screenshotNotes,
} from "./screenshots.ts";

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "yui-shots-test-"));
});
afterEach(() => rm(root, { recursive: true, force: true }));

// A real PNG whose red channel tells the file apart after the round trip.
async function png(path: string, width: number, height: number, red = 0): Promise<void> {
  await sharp({ create: { width, height, channels: 3, background: { r: red, g: 0, b: 0 } } })
    .png()
    .toFile(path);
}

async function decode(dataUrl: string) {
  expect(dataUrl.startsWith("data:image/jpeg;base64,")).toBe(true);
  const buf = Buffer.from(dataUrl.slice("data:image/jpeg;base64,".length), "base64");
  const meta = await sharp(buf).metadata();
  const { channels } = await sharp(buf).stats();
  return { format: meta.format, width: meta.width, height: meta.height, red: channels[0]?.mean ?? -1 };
}

describe("createShotFolder", () => {
  it("creates yui-browser-<pid>-<nanos>-<counter> under the temp dir, a new one per call", async () => {
    const a = await createShotFolder(root);
    const b = await createShotFolder(root);
    const pattern = new RegExp(`^${SHOT_FOLDER_PREFIX}${process.pid}-(\\d{19,})-(\\d+)$`);
    const [, nanosA, counterA] = pattern.exec(a.slice(root.length + 1)) ?? [];
    const [, , counterB] = pattern.exec(b.slice(root.length + 1)) ?? [];
    expect(Number(counterB)).toBe(Number(counterA) + 1);
    // Nanoseconds since the epoch: within a minute of now.
    expect(Math.abs(Number(BigInt(nanosA ?? "0") / 1_000_000n) - Date.now())).toBeLessThan(60_000);
    expect((await stat(a)).isDirectory()).toBe(true);
  });

  it("fails with the file system's reason when the temp dir is not a directory", async () => {
    const file = join(root, "not-a-dir");
    await writeFile(file, "");
    await expect(createShotFolder(file)).rejects.toThrow(/ENOTDIR/);
  });
});

describe("collectScreenshots", () => {
  it("keeps the last 4 in file-name order, counts the dropped ones, and deletes the folder", async () => {
    const folder = await createShotFolder(root);
    for (let i = 1; i <= 6; i++) await png(join(folder, `${String(i).padStart(3, "0")}.png`), 64, 48, i * 40);
    const shots = await collectScreenshots(folder);
    expect(shots.dropped).toBe(2);
    expect(shots.unreadable).toEqual([]);
    const reds = await Promise.all(shots.images.map(async (u) => (await decode(u)).red));
    // JPEG shifts colours a little: compare within a few levels.
    expect(reds.map((r, i) => Math.abs(r - (i + 3) * 40) < 8)).toEqual([true, true, true, true]);
    await expect(stat(folder)).rejects.toThrow(/ENOENT/);
  });

  it("scales the long edge down to 1280 px and never scales up", async () => {
    const folder = await createShotFolder(root);
    await png(join(folder, "001.png"), 1920, 1080);
    await png(join(folder, "002.png"), 1000, 3000);
    await png(join(folder, "003.png"), 800, 600);
    const shots = await collectScreenshots(folder);
    const sizes = await Promise.all(shots.images.map(async (u) => decode(u)));
    expect(sizes.map((s) => [s.format, s.width, s.height])).toEqual([
      ["jpeg", 1280, 720],
      ["jpeg", 427, 1280],
      ["jpeg", 800, 600],
    ]);
  });

  it("shows transparent areas as white, as a page behind them would be (JPEG has no alpha)", async () => {
    const folder = await createShotFolder(root);
    await sharp({
      create: { width: 64, height: 64, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toFile(join(folder, "001.png"));
    const [shot] = (await collectScreenshots(folder)).images;
    const { channels } = await sharp(Buffer.from(shot!.split(",")[1]!, "base64")).stats();
    expect(channels.slice(0, 3).map((c) => Math.round(c.mean))).toEqual([255, 255, 255]);
  });

  it("skips and names a file that does not decode", async () => {
    const folder = await createShotFolder(root);
    await png(join(folder, "001.png"), 32, 32);
    await writeFile(join(folder, "002.png"), "not a png");
    await png(join(folder, "003.png"), 32, 32);
    const shots = await collectScreenshots(folder);
    expect(shots.images).toHaveLength(2);
    expect(shots.unreadable).toEqual(["002.png"]);
    expect(screenshotNotes(shots)).toEqual([unreadableShotsNote(["002.png"])]);
  });

  it("answers no images for a folder the script never wrote to, or removed", async () => {
    const folder = await createShotFolder(root);
    expect(await collectScreenshots(folder)).toEqual({ images: [], dropped: 0, unreadable: [] });
    expect(await collectScreenshots(join(root, "gone"))).toEqual({ images: [], dropped: 0, unreadable: [] });
  });
});

describe("screenshotNotes", () => {
  it("states the dropped count and unreadable names only when non-zero", () => {
    expect(screenshotNotes({ dropped: 0, unreadable: [] })).toEqual([]);
    expect(screenshotNotes({ dropped: 5, unreadable: ["a.png", "b.png"] })).toEqual([
      droppedShotsNote(5),
      unreadableShotsNote(["a.png", "b.png"]),
    ]);
  });
});

// A pid that surely belongs to no process: a child that has exited (and was reaped).
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", ""]);
  expect(r.status).toBe(0);
  return r.pid;
}

describe("removeLeftoverShotFolders", () => {
  it("deletes the folders whose owner is gone or that no call of this process holds, and leaves everything else", async () => {
    const dead = deadPid();
    await mkdir(join(root, `yui-browser-${dead}-2-3`));
    await writeFile(join(root, `yui-browser-${dead}-2-3`, "001.png"), "x");
    await mkdir(join(root, "yui-browser-not-a-pid"));
    // Ours, from an earlier start (a script recreated it late): no call of this process holds it.
    await mkdir(join(root, `yui-browser-${process.pid}-5-999999`));
    // Ours, a call in flight; and a live process's (the parent of this test run).
    const inFlight = await createShotFolder(root);
    await mkdir(join(root, `yui-browser-${process.ppid}-100-7`));
    await mkdir(join(root, "other"));
    await writeFile(join(root, "yui-browser-file"), "a file, not a folder");
    expect(await removeLeftoverShotFolders(root)).toBe(3);
    expect((await readdir(root)).sort()).toEqual(
      [basename(inFlight), `yui-browser-${process.ppid}-100-7`, "other", "yui-browser-file"].sort(),
    );
    // Collected: no longer held, so the next start removes it (had a late script recreated it).
    await collectScreenshots(inFlight);
    await mkdir(inFlight);
    expect(await removeLeftoverShotFolders(root)).toBe(1);
  });
});

describe("start-up cleanup with two YUI processes on one temp directory", () => {
  const OWNER = fileURLToPath(new URL("./fixtures/shot-folder-owner.ts", import.meta.url));
  const owner = (mode: string) =>
    spawn(process.execPath, ["--import", "tsx", OWNER, mode], {
      env: { ...process.env, TMPDIR: root },
      stdio: ["pipe", "pipe", "inherit"],
    });
  const firstLine = (child: ChildProcess) =>
    new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout!.on("data", (c: Buffer) => {
        out += c.toString();
        if (out.includes("\n")) resolve(out.split("\n")[0]!);
      });
      child.once("exit", (code) => reject(new Error(`exited with ${code} before answering: ${out}`)));
    });
  const exited = (child: ChildProcess) =>
    new Promise<number | null>((resolve) => {
      if (child.exitCode !== null) resolve(child.exitCode);
      else child.once("exit", resolve);
    });

  // tsx keeps its cache in TMPDIR as well: only the screenshot folders count here.
  const shotFolders = async () =>
    (await readdir(root)).filter((n) => n.startsWith(SHOT_FOLDER_PREFIX)).sort();

  it("leaves the other process's live folder and removes the folder of a process that is gone", async () => {
    const holder = owner("hold");
    try {
      const live = await firstLine(holder);
      const leaver = owner("leave");
      const orphan = await firstLine(leaver);
      expect(await exited(leaver)).toBe(0);
      expect([dirname(live), dirname(orphan)]).toEqual([root, root]);
      expect(await shotFolders()).toEqual([basename(live), basename(orphan)].sort());

      // A second process starts (the app beside a running `yui chat`, or a second host).
      const starter = owner("start");
      expect(await firstLine(starter)).toBe("started");
      expect(await exited(starter)).toBe(0);
      expect(await shotFolders()).toEqual([basename(live)]);
      expect((await stat(live)).isDirectory()).toBe(true);
    } finally {
      holder.stdin!.end();
      await exited(holder);
    }
    // Once its owner is gone, the next start removes it too.
    const starter = owner("start");
    expect(await firstLine(starter)).toBe("started");
    expect(await shotFolders()).toEqual([]);
  });
});
