// The file tools' I/O: read_file, write_file, edit_file and read_image over a Workspace. Paths are
// resolved by the Workspace and each file is opened with O_NOFOLLOW (fs/ops.mjs), both through the
// workspace's FileAccess: in bwrap mode that is the file worker inside the sandbox, so a symlink
// swapped in by a command between the check and the open leads only where the sandbox reaches.
import path from "node:path";
import sharp from "sharp";
import { IMAGE_MAX_BYTES, TEXT_FILE_MAX_BYTES } from "./limits.ts";
import { msg, ToolError } from "./messages.ts";
import { exactReplace, type LineWindow, lineWindow } from "./text.ts";
import type { Workspace } from "./workspace.ts";

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
async function readRegular(ws: Workspace, real: string, shown: string, max: number): Promise<Buffer> {
  let answer: Awaited<ReturnType<Workspace["access"]["read"]>>;
  try {
    answer = await ws.access.read(real, max);
  } catch (e) {
    throw e instanceof ToolError ? e : fsError(e, shown);
  }
  if (answer.kind === "dir") throw new ToolError(msg.isDirectory(shown));
  if (answer.kind === "other") throw new ToolError(msg.notRegularFile(shown));
  if (answer.kind === "large") throw new ToolError(msg.fileTooLarge(shown, answer.size, max));
  return answer.data;
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
  return { real, text: decodeText(await readRegular(ws, real, shown, TEXT_FILE_MAX_BYTES), shown) };
}

async function writeRegular(ws: Workspace, real: string, shown: string, data: string): Promise<number> {
  const bytes = Buffer.byteLength(data);
  if (bytes > TEXT_FILE_MAX_BYTES) throw new ToolError(msg.contentTooLarge(bytes, TEXT_FILE_MAX_BYTES));
  let answer: Awaited<ReturnType<Workspace["access"]["write"]>>;
  try {
    answer = await ws.access.write(real, Buffer.from(data, "utf8"));
  } catch (e) {
    throw e instanceof ToolError ? e : fsError(e, shown);
  }
  if (answer.kind !== "file") throw new ToolError(msg.notRegularFile(shown));
  return bytes;
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
  return msg.wrote(await writeRegular(ws, real, shown, content), shown);
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
  await writeRegular(ws, real, shown, edited.text);
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
  const buf = await readRegular(ws, real, shown, IMAGE_MAX_BYTES);
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
