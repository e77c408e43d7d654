/**
 * bench:screenshots — the browser tool's screenshot step (host/browser/screenshots.ts: read the folder, resize to
 * at most 1280 px, JPEG, data URLs, delete) against ImageMagick's `convert` doing the same resize and JPEG encoding,
 * on four 1920x1080 PNGs, in the same run. Prints both medians and the ratio; the goal is at least 3x.
 * Run: npx tsx bench/screenshots.ts   (ImageMagick from Debian's imagemagick package)
 */
import { spawn } from "node:child_process";
import { constants } from "node:fs";
import { access, copyFile, mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { collectScreenshots, createShotFolder } from "../host/browser/screenshots.ts";
import { SCREENSHOT_MAX_EDGE } from "../src/io/chat/tools/browser/results.ts";

const ROUNDS = 9;
const GOAL = 3;

// A page-like 1920x1080 picture: a header, text lines, boxes and a photo-like gradient, so PNG and JPEG both work
// as hard as on a real screenshot.
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
    <rect width="1920" height="1080" fill="#fafafa"/>
    <rect width="1920" height="90" fill="#20324a"/>
    <text x="80" y="60" font-size="40" fill="#ffffff" font-family="sans-serif">Example page ${seed}</text>
    ${rows.join("\n")}
    <rect x="1300" y="140" width="540" height="800" fill="url(#g)"/>
    <circle cx="1570" cy="540" r="${180 + seed * 10}" fill="#c04a3a" fill-opacity="0.6"/>
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

function convertToDataUrl(convert: string, file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const edge = `${SCREENSHOT_MAX_EDGE}x${SCREENSHOT_MAX_EDGE}>`;
    const child = spawn(convert, [file, "-resize", edge, "-quality", "80", "jpeg:-"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    let err = "";
    child.stdout.on("data", (c: Buffer) => out.push(c));
    child.stderr.on("data", (c: Buffer) => {
      err += c;
    });
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(`data:image/jpeg;base64,${Buffer.concat(out).toString("base64")}`)
        : reject(new Error(`convert exited ${code}: ${err}`)),
    );
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
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

    const oursMs: number[] = [];
    const magickMs: number[] = [];
    let oursBytes = 0;
    let magickBytes = 0;
    // One warm-up round each, then interleaved rounds so load changes hit both sides alike.
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
      const urls = await Promise.all(files.map((f) => convertToDataUrl(convert, f)));
      const magick = performance.now() - t;
      if (round === 0) continue;
      oursMs.push(ours);
      magickMs.push(magick);
      oursBytes = shots.images.reduce((n, u) => n + u.length, 0);
      magickBytes = urls.reduce((n, u) => n + u.length, 0);
    }

    const ours = median(oursMs);
    const magick = median(magickMs);
    const ratio = magick / ours;
    console.log(
      `bench:screenshots — 4 PNGs 1920x1080 -> JPEG, long edge <= ${SCREENSHOT_MAX_EDGE}, ${ROUNDS} rounds`,
    );
    console.log(
      `  screenshot step (sharp): median ${ours.toFixed(1)} ms  (data URLs ${(oursBytes / 1024).toFixed(0)} KiB)`,
    );
    console.log(
      `  ImageMagick ${convert}: median ${magick.toFixed(1)} ms  (data URLs ${(magickBytes / 1024).toFixed(0)} KiB)`,
    );
    console.log(
      `  ratio: ${ratio.toFixed(2)}x faster (goal >= ${GOAL}x: ${ratio >= GOAL ? "met" : "NOT met"})`,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

await main();
