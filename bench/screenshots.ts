/**
 * bench:screenshots — the browser tool's screenshot step (host/browser/screenshots.ts: read the folder, flatten
 * onto white, resize to at most 1280 px with a cubic (Catmull-Rom) filter, JPEG quality 80, data URLs, delete)
 * against its peer, ImageMagick's `convert` doing the same work in the same run: the same four 1920x1080 PNGs
 * (with transparent and half-transparent parts), flattened onto white, `-filter Catrom`, the same size limit,
 * quality 80, read back as data URLs, its output folder deleted.
 *
 * Fairness: ImageMagick converts the four files in ONE process per round (`+adjoin`), and the launch cost of
 * that process (`convert` on a 1x1 image, timed in the same rounds) is subtracted from its time; the ratio
 * is computed on that launch-free time, and the raw time is printed too. sharp's operation cache is off, so
 * neither side reuses work across rounds. Both outputs must match: decoded with sharp, the mean absolute
 * difference per channel between our JPEG and ImageMagick's must stay within TOLERANCE (0-255 scale), or
 * the benchmark fails. Prints medians and the ratio; the goal is at least 3x.
 * Run: npx tsx bench/screenshots.ts   (ImageMagick from Debian's imagemagick package)
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access, copyFile, mkdir, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { collectScreenshots, createShotFolder } from "../host/browser/screenshots.ts";
import { SCREENSHOT_MAX_EDGE } from "../src/io/browser/results.ts";

const ROUNDS = 9;
const GOAL = 3;
/** Largest mean absolute difference per channel (0-255) allowed between the two sides' pictures. */
const TOLERANCE = 3;

// A page-like 1920x1080 picture: a header, text lines, boxes and a photo-like gradient, so PNG and JPEG both work
// as hard as on a real screenshot; its right edge is transparent and a box is half transparent, so flattening
// onto white is part of the work (a side that dropped the alpha would draw them black and fail the match).
function pageSvg(seed: number): string {
  const rows: string[] = [];
  for (let i = 0; i < 40; i++) {
    const y = 140 + i * 22;
    const w = 400 + ((i * 97 + seed * 31) % 900);
    rows.push(
      `<rect x="80" y="${y}" width="${w}" height="10" fill="#${(0x334455 + i * 1113 * seed).toString(16).slice(-6)}"/>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="1920" height="1080">
    <defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="#${(seed * 0x2a3b4c).toString(16).padStart(6, "0").slice(-6)}"/>
      <stop offset="1" stop-color="#f0e0c0"/></linearGradient></defs>
    <rect width="1800" height="1080" fill="#fafafa"/>
    <rect width="1800" height="90" fill="#20324a"/>
    <text x="80" y="60" font-size="40" fill="#ffffff" font-family="sans-serif">Example page ${seed}</text>
    ${rows.join("\n")}
    <rect x="1300" y="140" width="540" height="800" fill="url(#g)"/>
    <circle cx="1570" cy="540" r="${180 + seed * 10}" fill="#c04a3a" fill-opacity="0.6"/>
    <rect x="200" y="700" width="600" height="300" fill="#3050c0" fill-opacity="0.4"/>
  </svg>`;
}

async function findConvert(): Promise<string> {
  // Debian's own binary first: other `convert`s on PATH may be wrappers that would distort the timing.
  for (const candidate of ["/usr/bin/convert", "/usr/local/bin/magick", "/opt/homebrew/bin/magick"]) {
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return "convert";
}

/** Runs `convert` with `args`; resolves when it exits 0. */
function run(convert: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(convert, args, { stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (c: Buffer) => {
      err += c;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve() : reject(new Error(`convert exited ${code}: ${err}`)),
    );
  });
}

/** ImageMagick's side: all files in one process, then the JPEGs read back as data URLs and the folder deleted. */
async function magickDataUrls(convert: string, files: string[], out: string): Promise<string[]> {
  await mkdir(out);
  const edge = `${SCREENSHOT_MAX_EDGE}x${SCREENSHOT_MAX_EDGE}>`;
  await run(convert, [
    ...files,
    ...["-background", "white", "-alpha", "remove", "-alpha", "off"],
    ...["-filter", "Catrom", "-resize", edge, "-quality", "80", "+adjoin", join(out, "%03d.jpg")],
  ]);
  const names = (await readdir(out)).sort();
  const urls = await Promise.all(
    names.map(async (n) => `data:image/jpeg;base64,${(await readFile(join(out, n))).toString("base64")}`),
  );
  await rm(out, { recursive: true, force: true });
  return urls;
}

/** Mean absolute difference per channel (0-255) of two JPEG data URLs, decoded with sharp; throws on a size mismatch. */
async function meanAbsDiff(a: string, b: string): Promise<number> {
  const decode = (u: string) =>
    sharp(Buffer.from(u.slice(u.indexOf(",") + 1), "base64"))
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
  const [x, y] = await Promise.all([decode(a), decode(b)]);
  if (x.info.width !== y.info.width || x.info.height !== y.info.height || x.data.length !== y.data.length)
    throw new Error(
      `outputs differ in size: ${x.info.width}x${x.info.height} and ${y.info.width}x${y.info.height}`,
    );
  let sum = 0;
  for (let i = 0; i < x.data.length; i++) sum += Math.abs(x.data[i]! - y.data[i]!);
  return sum / x.data.length;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  sharp.cache(false);
  const root = await mkdtemp(join(tmpdir(), "yui-bench-shots-"));
  try {
    const sources = join(root, "sources");
    await mkdir(sources);
    const files: string[] = [];
    for (let i = 1; i <= 4; i++) {
      const file = join(sources, `${String(i).padStart(3, "0")}.png`);
      await sharp(Buffer.from(pageSvg(i)))
        .png()
        .toFile(file);
      files.push(file);
    }
    const convert = await findConvert();
    const tiny = join(root, "tiny.png");
    await sharp({ create: { width: 1, height: 1, channels: 3, background: "#ffffff" } })
      .png()
      .toFile(tiny);

    const oursMs: number[] = [];
    const magickMs: number[] = [];
    const launchMs: number[] = [];
    let oursBytes = 0;
    let magickBytes = 0;
    let worst = 0;
    // One warm-up round, then interleaved rounds so load changes hit both sides alike.
    for (let round = 0; round <= ROUNDS; round++) {
      const folder = await createShotFolder(root);
      await Promise.all(
        files.map((f, i) => copyFile(f, join(folder, `${String(i + 1).padStart(3, "0")}.png`))),
      );
      let t = performance.now();
      const shots = await collectScreenshots(folder);
      const ours = performance.now() - t;
      if (shots.images.length !== 4) throw new Error("the screenshot step did not return 4 images");

      t = performance.now();
      const urls = await magickDataUrls(convert, files, join(root, `magick-${round}`));
      const magick = performance.now() - t;
      if (urls.length !== 4) throw new Error(`ImageMagick wrote ${urls.length} images, not 4`);

      // The launch cost: one process converting a 1x1 picture to JPEG (start-up, delegates, one tiny file).
      t = performance.now();
      await run(convert, [tiny, "-quality", "80", join(root, "tiny.jpg")]);
      const launch = performance.now() - t;

      if (round === 0) {
        // Same work, same result: every picture must match its peer's within the tolerance.
        for (let i = 0; i < 4; i++) worst = Math.max(worst, await meanAbsDiff(shots.images[i]!, urls[i]!));
        if (worst > TOLERANCE)
          throw new Error(
            `outputs do not match: mean absolute difference ${worst.toFixed(2)} > ${TOLERANCE}`,
          );
        continue;
      }
      oursMs.push(ours);
      magickMs.push(magick);
      launchMs.push(launch);
      oursBytes = shots.images.reduce((n, u) => n + u.length, 0);
      magickBytes = urls.reduce((n, u) => n + u.length, 0);
    }

    const ours = median(oursMs);
    const magick = median(magickMs);
    const launch = median(launchMs);
    const magickWork = median(magickMs.map((m, i) => m - launchMs[i]!));
    const ratio = magickWork / ours;
    console.log(
      `bench:screenshots — 4 PNGs 1920x1080 (with transparency) -> flattened onto white, Catmull-Rom, long edge <= ${SCREENSHOT_MAX_EDGE}, JPEG q80, data URLs; ${ROUNDS} rounds`,
    );
    console.log(
      `  screenshot step (sharp): median ${ours.toFixed(1)} ms  (data URLs ${(oursBytes / 1024).toFixed(0)} KiB)`,
    );
    console.log(
      `  peer: ImageMagick ${convert}, one process for the 4 files: median ${magick.toFixed(1)} ms raw, launch ${launch.toFixed(1)} ms, ${magickWork.toFixed(1)} ms without launch  (data URLs ${(magickBytes / 1024).toFixed(0)} KiB)`,
    );
    console.log(
      `  outputs match: mean absolute difference per channel at most ${worst.toFixed(2)} of 255 (tolerance ${TOLERANCE})`,
    );
    console.log(
      `  ratio (peer without launch / ours): ${ratio.toFixed(2)}x faster (goal >= ${GOAL}x: ${ratio >= GOAL ? "met" : "NOT met"}); with launch ${(magick / ours).toFixed(2)}x`,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
