// The file tools' I/O: read_file, write_file, edit_file and read_image over a Workspace. Paths are
// resolved by the Workspace; here each file is opened with O_NOFOLLOW so that a symlink swapped in
// after the check is refused rather than followed.
import { constants } from "node:fs";
import { type FileHandle, mkdir, open } from "node:fs/promises";
import path from "node:path";
import sharp from "sharp";
import { IMAGE_MAX_BYTES, TEXT_FILE_MAX_BYTES } from "./limits.ts";
import { msg, ToolError } from "./messages.ts";
import { exactReplace, type LineWindow, lineWindow } from "./text.ts";
import type { Workspace } from "./workspace.ts";

const { O_RDONLY, O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW, O_NONBLOCK } = constants;

const errCode = (e: unknown): string =>
  typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : "EUNKNOWN";

function fsError(e: unknown, shown: string): ToolError {
  const code = errCode(e);
  if (code === "ENOENT") return new ToolError(msg.notFound(shown));
  if (code === "EISDIR") return new ToolError(msg.isDirectory(shown));
  if (code === "ENOTDIR" || code === "EEXIST") return new ToolError(msg.parentNotDirectory(shown));
  if (code === "ELOOP") return new ToolError(msg.symlinkEscapes(shown));
  if (code === "ENXIO") return new ToolError(msg.notRegularFile(shown)); // a FIFO with no reader
  if (code === "EACCES" || code === "EPERM") return new ToolError(msg.permissionDenied(shown));
  return new ToolError(msg.fsFailed(shown, code));
}

/** Reads a whole regular file up to `max` bytes; directories, devices, FIFOs and larger files are refused. */
async function readRegular(real: string, shown: string, max: number): Promise<Buffer> {
  let fh: FileHandle;
  try {
    // O_NONBLOCK: opening a FIFO must not hang the tool waiting for a writer.
    fh = await open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  } catch (e) {
    throw fsError(e, shown);
  }
  try {
    const st = await fh.stat();
    if (st.isDirectory()) throw new ToolError(msg.isDirectory(shown));
    if (!st.isFile()) throw new ToolError(msg.notRegularFile(shown));
    if (st.size > max) throw new ToolError(msg.fileTooLarge(shown, st.size, max));
    const buf = await fh.readFile();
    // The file may have grown between stat and read.
    if (buf.length > max) throw new ToolError(msg.fileTooLarge(shown, buf.length, max));
    return buf;
  } catch (e) {
    throw e instanceof ToolError ? e : fsError(e, shown);
  } finally {
    await fh.close();
  }
}

function decodeText(buf: Buffer, shown: string): string {
  // A NUL byte is valid UTF-8 but no text file has one; it is how binaries are told apart.
  if (buf.includes(0)) throw new ToolError(msg.notText(shown));
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(buf);
  } catch {
    throw new ToolError(msg.notText(shown));
  }
}

async function readText(ws: Workspace, shown: string): Promise<{ real: string; text: string }> {
  const real = await ws.resolve(shown, "existing");
  return { real, text: decodeText(await readRegular(real, shown, TEXT_FILE_MAX_BYTES), shown) };
}

async function writeRegular(real: string, shown: string, data: string): Promise<number> {
  const bytes = Buffer.byteLength(data);
  if (bytes > TEXT_FILE_MAX_BYTES) throw new ToolError(msg.contentTooLarge(bytes, TEXT_FILE_MAX_BYTES));
  let fh: FileHandle;
  try {
    await mkdir(path.dirname(real), { recursive: true });
    fh = await open(real, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK, 0o666);
  } catch (e) {
    throw fsError(e, shown);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw new ToolError(msg.notRegularFile(shown));
    await fh.writeFile(data, "utf8");
    return bytes;
  } catch (e) {
    throw e instanceof ToolError ? e : fsError(e, shown);
  } finally {
    await fh.close();
  }
}

/** read_file: a window of lines of a UTF-8 text file (offset is 1-based). */
export async function readFileWindow(
  ws: Workspace,
  shown: string,
  offset?: number,
  limit?: number,
): Promise<LineWindow> {
  const { text } = await readText(ws, shown);
  return lineWindow(text, offset, limit);
}

/** write_file: creates or overwrites a text file, creating parent directories; returns the answer line. */
export async function writeTextFile(ws: Workspace, shown: string, content: string): Promise<string> {
  const real = await ws.resolve(shown, "create");
  return msg.wrote(await writeRegular(real, shown, content), shown);
}

/** edit_file: exact replacement under the unique-match rule; returns the answer line. */
export async function editTextFile(
  ws: Workspace,
  shown: string,
  old: string,
  replacement: string,
  replaceAll: boolean,
): Promise<string> {
  const { real, text } = await readText(ws, shown);
  const edited = exactReplace(text, old, replacement, replaceAll, shown);
  await writeRegular(real, shown, edited.text);
  return msg.replaced(edited.count, shown);
}

/** The extensions read_image takes and the format sharp must find in the file for each. */
export const IMAGE_TYPES: Readonly<Record<string, { format: string; mimeType: string; name: string }>> = {
  ".png": { format: "png", mimeType: "image/png", name: "PNG" },
  ".jpg": { format: "jpeg", mimeType: "image/jpeg", name: "JPEG" },
  ".jpeg": { format: "jpeg", mimeType: "image/jpeg", name: "JPEG" },
  ".gif": { format: "gif", mimeType: "image/gif", name: "GIF" },
  ".webp": { format: "webp", mimeType: "image/webp", name: "WebP" },
};

/** read_image: the image's bytes as base64 with its MIME type, after checking that it really is one. */
export async function readImage(ws: Workspace, shown: string): Promise<{ data: string; mimeType: string }> {
  const ext = path.extname(shown).toLowerCase();
  const type = Object.hasOwn(IMAGE_TYPES, ext) ? IMAGE_TYPES[ext] : undefined;
  if (!type) throw new ToolError(msg.imageType(ext === "" ? "(none)" : ext));
  const real = await ws.resolve(shown, "existing");
  const buf = await readRegular(real, shown, IMAGE_MAX_BYTES);
  // sharp reads the header for real (not just magic bytes), so a renamed or broken file is refused
  // here instead of reaching the agent's model as an image it cannot decode.
  let format: string | undefined;
  try {
    format = (await sharp(buf).metadata()).format;
  } catch {
    format = undefined;
  }
  if (format !== type.format) throw new ToolError(msg.imageContent(shown, type.name));
  return { data: buf.toString("base64"), mimeType: type.mimeType };
}
