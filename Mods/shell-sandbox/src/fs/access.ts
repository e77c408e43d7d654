// Where the file tools' system calls run: in this process (the container, --sandbox none), or in the
// file worker inside the same kind of bubblewrap sandbox as `run` (--sandbox bwrap, worker.ts).
import * as ops from "./ops.mjs";

export type { ReadAnswer, WriteAnswer } from "./ops.mjs";

/** The four system-level steps the file tools are built from; a failure rejects with an errno `code`. */
export interface FileAccess {
  realpath(p: string): Promise<string>;
  exists(p: string): Promise<boolean>;
  read(p: string, max: number): Promise<ops.ReadAnswer>;
  write(p: string, data: Buffer): Promise<ops.WriteAnswer>;
}

/** The calls made by this process, with this process's view of the filesystem. */
export const localAccess: FileAccess = {
  realpath: ops.resolveReal,
  exists: ops.exists,
  read: ops.readRegular,
  write: ops.writeRegular,
};
