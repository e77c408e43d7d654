// Types of ops.mjs (plain JavaScript, so that the file worker runs it with the bare node binary).
export type ReadAnswer =
  | { kind: "file"; data: Buffer }
  | { kind: "dir" }
  | { kind: "other" }
  | { kind: "large"; size: number };
export type WriteAnswer = { kind: "file" } | { kind: "other" };

export function resolveReal(p: string): Promise<string>;
export function exists(p: string): Promise<boolean>;
export function readRegular(p: string, max: number): Promise<ReadAnswer>;
export function writeRegular(p: string, data: Buffer): Promise<WriteAnswer>;
