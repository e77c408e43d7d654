// The file tools' boundary: every path an agent gives is resolved inside the workspace, and a path
// that leaves it (by "..", by an absolute path elsewhere, or through a symlink) is refused. `run` is
// unrestricted by design; this keeps the file tools from being the easier way out.
import { realpath, stat } from "node:fs/promises";
import path from "node:path";
import { quoteInput } from "@yui/mod-kit";
import { type FileAccess, localAccess } from "./fs/access.ts";
import { msg, ToolError } from "./messages.ts";

type Mode = "existing" | "create";

const isInside = (parent: string, child: string): boolean => {
  const rel = path.relative(parent, child);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
};

const errCode = (e: unknown): string =>
  typeof e === "object" && e !== null && "code" in e ? String((e as { code: unknown }).code) : "EUNKNOWN";

/** The one directory the file tools may touch, as given and as its real (symlink-free) path. */
export class Workspace {
  private constructor(
    /** The workspace as configured, made absolute. */
    readonly root: string,
    /** The workspace with every symlink resolved: the boundary every real path must stay under. */
    readonly realRoot: string,
    /**
     * Where paths are resolved and files opened: this process, or (bwrap mode) the file worker inside
     * the sandbox, so that a symlink swapped in by a command can only lead where the sandbox reaches.
     */
    readonly access: FileAccess,
  ) {}

  /** Opens a workspace directory; throws a plain Error when it does not exist or is not a directory. */
  static async open(dir: string, access: FileAccess = localAccess): Promise<Workspace> {
    const root = path.resolve(dir);
    let real: string;
    try {
      real = await realpath(root);
    } catch (e) {
      throw new Error(`workspace ${quoteInput(root)} cannot be used: ${errCode(e)}`);
    }
    if (!(await stat(real)).isDirectory())
      throw new Error(`workspace ${quoteInput(root)} is not a directory`);
    return new Workspace(root, real, access);
  }

  /**
   * Resolves an agent's path to a real absolute path inside the workspace, or throws a ToolError.
   * "existing" requires the path to exist; "create" also accepts a path whose tail does not exist yet.
   */
  async resolve(input: string, mode: Mode): Promise<string> {
    if (input === "") throw new ToolError(msg.pathEmpty());
    if (input.includes("\0")) throw new ToolError(msg.pathNul());
    const given = path.isAbsolute(input) ? path.resolve(input) : path.resolve(this.root, input);
    // An absolute path may name the workspace by its configured path or by its real one.
    if (!isInside(this.root, given) && !isInside(this.realRoot, given)) {
      throw new ToolError(msg.pathEscapes(input));
    }
    // From here on the path starts at the real workspace: the configured one may be a link that
    // only this process sees (the file worker sees the workspace at its real path).
    const lexical = isInside(this.realRoot, given)
      ? given
      : path.join(this.realRoot, path.relative(this.root, given));
    try {
      return this.inside(await this.access.realpath(lexical), input);
    } catch (e) {
      if (e instanceof ToolError) throw e;
      const code = errCode(e);
      if (code !== "ENOENT") throw this.fsError(code, input);
      // realpath failed but the entry itself exists: a symlink to nowhere. Refusing it keeps a link
      // planted in the workspace from being a way to create files wherever it points.
      if (await this.access.exists(lexical)) throw new ToolError(msg.danglingSymlink(input));
      // Check the ancestors before saying "no such file", so a planted link to a directory outside
      // cannot be used to learn which files exist there.
      const fresh = await this.resolveNew(lexical, input);
      if (mode === "existing") throw new ToolError(msg.notFound(input));
      return fresh;
    }
  }

  /** For a path that does not exist: the nearest existing ancestor must be real and inside. */
  private async resolveNew(lexical: string, input: string): Promise<string> {
    const tail: string[] = [path.basename(lexical)];
    let dir = path.dirname(lexical);
    for (;;) {
      try {
        const real = this.inside(await this.access.realpath(dir), input);
        return path.join(real, ...tail);
      } catch (e) {
        if (e instanceof ToolError) throw e;
        const code = errCode(e);
        if (code !== "ENOENT") throw this.fsError(code, input);
        if (await this.access.exists(dir)) throw new ToolError(msg.danglingSymlink(input));
        tail.unshift(path.basename(dir));
        const up = path.dirname(dir);
        // Cannot happen while the workspace exists (it is an ancestor); guards against it vanishing.
        if (up === dir) throw new ToolError(msg.notFound(input));
        dir = up;
      }
    }
  }

  private inside(real: string, input: string): string {
    if (!isInside(this.realRoot, real)) throw new ToolError(msg.symlinkEscapes(input));
    return real;
  }

  private fsError(code: string, input: string): ToolError {
    if (code === "ENOTDIR") return new ToolError(msg.parentNotDirectory(input));
    if (code === "ELOOP") return new ToolError(msg.symlinkLoop(input));
    if (code === "EACCES" || code === "EPERM") return new ToolError(msg.permissionDenied(input));
    return new ToolError(msg.fsFailed(input, code));
  }
}
