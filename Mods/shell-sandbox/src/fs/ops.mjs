// The file tools' system calls, in one dependency-free module so that the very same code runs in the
// server (container and --sandbox none) and in the file worker inside bubblewrap (--sandbox bwrap,
// fs/worker.mjs), where the workspace bind mount is the boundary exactly as it is for `run`. Plain
// JavaScript because the worker runs it with the bare node binary, without the project's node_modules.
// What each answer means for the agent (the messages) is decided by the TypeScript callers.
import { constants } from "node:fs";
import { lstat, mkdir, open, realpath } from "node:fs/promises";
import path from "node:path";

const { O_RDONLY, O_WRONLY, O_CREAT, O_TRUNC, O_NOFOLLOW, O_NONBLOCK } = constants;

/** realpath(3): the path with every symlink resolved; rejects with the errno code (ENOENT…). */
export function resolveReal(p) {
  return realpath(p);
}

/** True when something (a dangling symlink too) exists at p. */
export async function exists(p) {
  try {
    await lstat(p);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads a whole regular file of at most `max` bytes, opened with O_NOFOLLOW (O_NONBLOCK: a FIFO
 * must not hang the tool). Answers {kind: "file", data}, or {kind: "dir"}, {kind: "other"} (device,
 * FIFO, socket), {kind: "large", size}; rejects with the errno code when it cannot be opened.
 */
export async function readRegular(p, max) {
  const fh = await open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  try {
    const st = await fh.stat();
    if (st.isDirectory()) return { kind: "dir" };
    if (!st.isFile()) return { kind: "other" };
    if (st.size > max) return { kind: "large", size: st.size };
    const data = await fh.readFile();
    // The file may have grown between stat and read.
    if (data.length > max) return { kind: "large", size: data.length };
    return { kind: "file", data };
  } finally {
    await fh.close();
  }
}

/**
 * Creates or overwrites a regular file with `data` (a Buffer), creating its parent directories,
 * opened with O_NOFOLLOW. Answers {kind: "file"} or {kind: "other"} when p is not a regular file.
 */
export async function writeRegular(p, data) {
  await mkdir(path.dirname(p), { recursive: true });
  const fh = await open(p, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK, 0o666);
  try {
    const st = await fh.stat();
    if (!st.isFile()) return { kind: "other" };
    await fh.writeFile(data);
    return { kind: "file" };
  } finally {
    await fh.close();
  }
}
