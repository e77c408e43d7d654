// Every text the tools answer with, written once: the code builds its answers from here and the
// tests assert against the same table, so a wording change is one edit. A path or extension the agent
// gave is quoted through q (the kit's quoteInput): at most 200 characters of it, so a 1 MB path never
// comes back whole.
import { quoteInput as q } from "@yui/mod-kit";

/** A refusal the agent should see as a tool error (isError), never as a crash of the server. */
export class ToolError extends Error {
  override name = "ToolError";
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

export const msg = {
  // Paths
  pathEmpty: () => "path is empty",
  pathNul: () => "path contains a NUL byte",
  pathEscapes: (p: string) => `path escapes the workspace: ${q(p)}`,
  symlinkEscapes: (p: string) => `path leads through a symlink to outside the workspace: ${q(p)}`,
  danglingSymlink: (p: string) => `path is a symlink whose target does not exist: ${q(p)}`,
  symlinkLoop: (p: string) => `too many levels of symlinks: ${q(p)}`,
  notFound: (p: string) => `no such file: ${q(p)}`,
  isDirectory: (p: string) => `is a directory, not a file: ${q(p)}`,
  notRegularFile: (p: string) => `not a regular file: ${q(p)}`,
  parentNotDirectory: (p: string) => `a parent of the path is not a directory: ${q(p)}`,
  permissionDenied: (p: string) => `permission denied: ${q(p)}`,
  fsFailed: (p: string, code: string) => `cannot access ${q(p)}: ${code}`,
  fileWorkerStopped: (why: string) => `the file tools' sandboxed worker stopped (${why}); try again`,

  // Text files
  notText: (p: string) => `not a UTF-8 text file: ${q(p)}`,
  fileTooLarge: (p: string, size: number, max: number) =>
    `file is too large: ${q(p)} is ${size} bytes, the limit is ${max} bytes`,
  contentTooLarge: (size: number, max: number) =>
    `content is too large: ${size} bytes, the limit is ${max} bytes`,
  offsetPastEnd: (offset: number, total: number) =>
    `offset ${offset} is past the end of the file (${plural(total, "line", "lines")})`,
  lineTooLong: (line: number, max: number) =>
    `line ${line} is longer than ${max} bytes; read it with run (e.g. cut -c or head -c)`,
  windowEmpty: () => "empty file (0 lines)",
  windowMore: (from: number, to: number, total: number) =>
    `lines ${from}-${to} of ${total}; ${plural(total - to, "more line", "more lines")}, next offset ${to + 1}`,
  windowEnd: (from: number, to: number, total: number) => `lines ${from}-${to} of ${total}; end of file`,
  wrote: (bytes: number, p: string) => `wrote ${plural(bytes, "byte", "bytes")} to ${q(p)}`,

  // edit_file
  oldEmpty: () => "old must not be empty",
  oldEqualsNew: () => "old and new are identical",
  noMatch: (p: string) => `old not found in ${q(p)} (0 matches)`,
  manyMatches: (p: string, n: number) =>
    `old matches ${n} times in ${q(p)}; add surrounding text to make it unique, or set replace_all`,
  replaced: (n: number, p: string) => `replaced ${plural(n, "occurrence", "occurrences")} in ${q(p)}`,

  // read_image
  imageType: (ext: string) =>
    `unsupported image type "${q(ext)}": read_image takes png, jpg, jpeg, gif, webp`,
  imageContent: (p: string, expected: string) => `not a valid ${expected} image: ${q(p)}`,

  // run
  commandEmpty: () => "command is empty",
  commandNul: () => "command contains a NUL byte",
  spawnFailed: (why: string) => `cannot start the shell: ${why}`,
  networkFailed: (why: string) => `cannot start the sandbox's network: ${why}`,
  commandTooLong: (bytes: number, max: number) =>
    `command is ${bytes} bytes; the kernel passes at most ${max - 1} bytes in one argument (MAX_ARG_STRLEN), ` +
    "so it cannot be run as it is: write it to a script file with write_file and run that instead (e.g. bash script.sh)",
} as const;
