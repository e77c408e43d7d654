import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { editTextFile, IMAGE_TYPES, readFileWindow, readImage, writeTextFile } from "./files.ts";
import { IMAGE_MAX_BYTES, TEXT_FILE_MAX_BYTES } from "./limits.ts";
import { msg } from "./messages.ts";
import { Workspace } from "./workspace.ts";

let base: string;
let root: string;
let outside: string;
let ws: Workspace;

const inWs = (...p: string[]) => path.join(root, ...p);

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-files-")));
  root = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(root);
  await mkdir(outside);
  await writeFile(path.join(outside, "secret.txt"), "secret\n");
  await symlink(path.join(outside, "secret.txt"), inWs("planted"));
  await symlink(outside, inWs("planted-dir"));
  ws = await Workspace.open(root);
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("read_file", () => {
  it("reads a window of a UTF-8 file", async () => {
    await writeFile(inWs("r.txt"), "α\nβ\nγ\n");
    const w = await readFileWindow(ws, "r.txt", 2, 1);
    expect(w.content).toBe("β\n");
    expect(w.note).toBe(msg.windowMore(2, 2, 3));
  });

  it("refuses a binary file, invalid UTF-8, a directory, a missing file and an oversized file", async () => {
    await writeFile(inWs("bin.dat"), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01]));
    await writeFile(inWs("latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9])); // "café" in Latin-1
    await mkdir(inWs("dir"), { recursive: true });
    await writeFile(inWs("big.txt"), Buffer.alloc(TEXT_FILE_MAX_BYTES + 1, 0x61));
    await expect(readFileWindow(ws, "bin.dat")).rejects.toThrow(msg.notText("bin.dat"));
    await expect(readFileWindow(ws, "latin1.txt")).rejects.toThrow(msg.notText("latin1.txt"));
    await expect(readFileWindow(ws, "dir")).rejects.toThrow(msg.isDirectory("dir"));
    await expect(readFileWindow(ws, "nope.txt")).rejects.toThrow(msg.notFound("nope.txt"));
    await expect(readFileWindow(ws, "big.txt")).rejects.toThrow(
      msg.fileTooLarge("big.txt", TEXT_FILE_MAX_BYTES + 1, TEXT_FILE_MAX_BYTES),
    );
  });

  it("refuses a FIFO at once instead of waiting for a writer", async () => {
    execFileSync("mkfifo", [inWs("fifo")]);
    await expect(readFileWindow(ws, "fifo")).rejects.toThrow(msg.notRegularFile("fifo"));
  });

  it("refuses a symlink planted inside that points outside", async () => {
    await expect(readFileWindow(ws, "planted")).rejects.toThrow(msg.symlinkEscapes("planted"));
    await expect(readFileWindow(ws, "planted-dir/secret.txt")).rejects.toThrow(
      msg.symlinkEscapes("planted-dir/secret.txt"),
    );
  });
});

describe("write_file", () => {
  it("creates a file and its parent directories, then overwrites it", async () => {
    expect(await writeTextFile(ws, "new/deep/w.txt", "héllo")).toBe(msg.wrote(6, "new/deep/w.txt"));
    expect(await readFile(inWs("new/deep/w.txt"), "utf8")).toBe("héllo");
    expect(await writeTextFile(ws, "new/deep/w.txt", "x")).toBe(msg.wrote(1, "new/deep/w.txt"));
    expect(await readFile(inWs("new/deep/w.txt"), "utf8")).toBe("x");
  });

  it("refuses to write through a symlink out of the workspace, leaving the target untouched", async () => {
    await expect(writeTextFile(ws, "planted", "pwned")).rejects.toThrow(msg.symlinkEscapes("planted"));
    await expect(writeTextFile(ws, "planted-dir/new.txt", "pwned")).rejects.toThrow(
      msg.symlinkEscapes("planted-dir/new.txt"),
    );
    await expect(writeTextFile(ws, "../outside/new.txt", "pwned")).rejects.toThrow(
      msg.pathEscapes("../outside/new.txt"),
    );
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("secret\n");
    await expect(readFile(path.join(outside, "new.txt"))).rejects.toThrow(/ENOENT/);
  });

  it("refuses a directory as the target, a file as a parent, and oversized content", async () => {
    await mkdir(inWs("adir"), { recursive: true });
    await writeFile(inWs("afile"), "f");
    await expect(writeTextFile(ws, "adir", "x")).rejects.toThrow(msg.isDirectory("adir"));
    await expect(writeTextFile(ws, "afile/x.txt", "x")).rejects.toThrow(
      msg.parentNotDirectory("afile/x.txt"),
    );
    await expect(writeTextFile(ws, "huge.txt", "a".repeat(TEXT_FILE_MAX_BYTES + 1))).rejects.toThrow(
      msg.contentTooLarge(TEXT_FILE_MAX_BYTES + 1, TEXT_FILE_MAX_BYTES),
    );
  });
});

describe("edit_file", () => {
  it("replaces a unique match in place", async () => {
    await writeFile(inWs("e.txt"), "let a = 1;\nlet b = 2;\n");
    expect(await editTextFile(ws, "e.txt", "b = 2", "b = 3", false)).toBe(msg.replaced(1, "e.txt"));
    expect(await readFile(inWs("e.txt"), "utf8")).toBe("let a = 1;\nlet b = 3;\n");
  });

  it("refuses several matches with the count, and replaces all when asked", async () => {
    await writeFile(inWs("m.txt"), "x x x");
    await expect(editTextFile(ws, "m.txt", "x", "y", false)).rejects.toThrow(msg.manyMatches("m.txt", 3));
    expect(await readFile(inWs("m.txt"), "utf8")).toBe("x x x");
    expect(await editTextFile(ws, "m.txt", "x", "y", true)).toBe(msg.replaced(3, "m.txt"));
    expect(await readFile(inWs("m.txt"), "utf8")).toBe("y y y");
  });

  it("refuses zero matches and leaves the file alone", async () => {
    await writeFile(inWs("z.txt"), "abc");
    await expect(editTextFile(ws, "z.txt", "q", "r", false)).rejects.toThrow(msg.noMatch("z.txt"));
    expect(await readFile(inWs("z.txt"), "utf8")).toBe("abc");
  });

  it("refuses to edit a file outside through a planted symlink", async () => {
    await expect(editTextFile(ws, "planted", "secret", "pwned", false)).rejects.toThrow(
      msg.symlinkEscapes("planted"),
    );
    expect(await readFile(path.join(outside, "secret.txt"), "utf8")).toBe("secret\n");
  });
});

describe("read_image", () => {
  const pixel = () =>
    sharp({ create: { width: 2, height: 3, channels: 3, background: { r: 200, g: 10, b: 10 } } });

  it.each(Object.entries(IMAGE_TYPES))("returns a %s file as its image type", async (ext, type) => {
    const file = `img/pic${ext.toUpperCase()}`;
    await mkdir(inWs("img"), { recursive: true });
    const buf = await pixel()
      .toFormat(type.format as "png")
      .toBuffer();
    await writeFile(inWs(file), buf);
    const img = await readImage(ws, file);
    expect(img.mimeType).toBe(type.mimeType);
    expect(Buffer.from(img.data, "base64").equals(buf)).toBe(true);
  });

  it("refuses other types by extension, and a file whose content is not the image it claims", async () => {
    await writeFile(inWs("pic.bmp"), "BM");
    await writeFile(inWs("notes"), "text");
    await writeFile(inWs("fake.png"), "not a png at all");
    await writeFile(inWs("jpeg-as.png"), await pixel().jpeg().toBuffer());
    await expect(readImage(ws, "pic.bmp")).rejects.toThrow(msg.imageType(".bmp"));
    await expect(readImage(ws, "notes")).rejects.toThrow(msg.imageType("(none)"));
    await expect(readImage(ws, "fake.png")).rejects.toThrow(msg.imageContent("fake.png", "PNG"));
    await expect(readImage(ws, "jpeg-as.png")).rejects.toThrow(msg.imageContent("jpeg-as.png", "PNG"));
  });

  it("refuses a missing image, an oversized one and one outside through a symlink", async () => {
    await writeFile(inWs("huge.png"), Buffer.alloc(IMAGE_MAX_BYTES + 1));
    await symlink(path.join(outside, "secret.txt"), inWs("link.png"));
    await expect(readImage(ws, "none.png")).rejects.toThrow(msg.notFound("none.png"));
    await expect(readImage(ws, "huge.png")).rejects.toThrow(
      msg.fileTooLarge("huge.png", IMAGE_MAX_BYTES + 1, IMAGE_MAX_BYTES),
    );
    await expect(readImage(ws, "link.png")).rejects.toThrow(msg.symlinkEscapes("link.png"));
  });
});
