/**
 * The stand-in's browser SDK, preloaded into every script (node --import): defines taskSpace(name). A task space
 * opens pages; page.screenshot({ path }) writes a real PNG of the page's viewport size (or a corrupt file for a
 * page opened with corrupt: true), creating the folder as needed.
 */
import { appendFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

// ego lite hands back everything a script logged, even when it exits right after: make the pipes blocking, so
// process.exit() cannot drop what is still queued (Node writes to a full pipe asynchronously otherwise).
for (const stream of [process.stdout, process.stderr]) stream._handle?.setBlocking?.(true);
// The CLI may be killed while the script runs on (as in ego lite): writing to its pipes must not end the script.
process.stdout.on("error", () => undefined);
process.stderr.on("error", () => undefined);

function log(event) {
  const file = process.env.EGO_STANDIN_LOG;
  if (file) appendFileSync(file, `${JSON.stringify({ ...event, pid: process.pid, t: Date.now() })}\n`);
}

// The script's own end, which a killed CLI no longer reports.
process.on("exit", (code) => log({ event: "script-exit", code }));

let shots = 0;

class Page {
  constructor(space, { url = "about:blank", width = 1280, height = 800, corrupt = false } = {}) {
    this.space = space;
    this.url = url;
    this.viewport = { width, height };
    this.corrupt = corrupt;
  }

  async goto(url) {
    this.url = url;
  }

  async title() {
    return `stand-in page at ${this.url}`;
  }

  async screenshot({ path }) {
    await mkdir(dirname(path), { recursive: true });
    shots += 1;
    if (this.corrupt) {
      await writeFile(path, "this is not an image");
    } else {
      const { default: sharp } = await import("sharp");
      const { width, height } = this.viewport;
      const background = { r: (shots * 40) % 256, g: 90, b: 160 };
      await sharp({ create: { width, height, channels: 3, background } })
        .png({ compressionLevel: 1 })
        .toFile(path);
    }
    log({ event: "screenshot", space: this.space.name, path });
  }
}

class TaskSpace {
  constructor(name) {
    this.name = name;
    this.openPages = [];
  }

  async newPage(options) {
    const page = new Page(this, options);
    this.openPages.push(page);
    return page;
  }

  pages() {
    return [...this.openPages];
  }
}

globalThis.taskSpace = async (name) => {
  log({ event: "taskSpace", name });
  const taken = (process.env.EGO_STANDIN_TAKEN ?? "").split(",").filter(Boolean);
  if (taken.includes(name)) {
    const err = new Error(`task space ${name} is in use by the user`);
    err.code = "EGO_TASK_SPACE_NAME_IN_USE";
    err.name = "EGO_TASK_SPACE_NAME_IN_USE";
    throw err;
  }
  return new TaskSpace(name);
};
