import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { msg } from "./messages.ts";
import { Workspace } from "./workspace.ts";

let base: string;
let ws: Workspace;
let root: string;
let outside: string;

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(tmpdir(), "shell-sandbox-ws-")));
  root = path.join(base, "ws");
  outside = path.join(base, "outside");
  await mkdir(path.join(root, "sub"), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, "sub", "a.txt"), "a");
  await writeFile(path.join(root, "plain"), "p");
  await writeFile(path.join(outside, "secret"), "s");
  await symlink(path.join(outside, "secret"), path.join(root, "to-secret"));
  await symlink(outside, path.join(root, "to-outside-dir"));
  await symlink("sub/a.txt", path.join(root, "to-a"));
  await symlink(path.join(outside, "nothing-yet"), path.join(root, "dangling-out"));
  await symlink("loop2", path.join(root, "loop1"));
  await symlink("loop1", path.join(root, "loop2"));
  ws = await Workspace.open(root);
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("Workspace.resolve", () => {
  it("resolves relative paths against the workspace", async () => {
    expect(await ws.resolve("sub/a.txt", "existing")).toBe(path.join(root, "sub", "a.txt"));
  });

  it("accepts absolute paths inside the workspace", async () => {
    expect(await ws.resolve(path.join(root, "plain"), "existing")).toBe(path.join(root, "plain"));
  });

  it("follows a symlink that stays inside", async () => {
    expect(await ws.resolve("to-a", "existing")).toBe(path.join(root, "sub", "a.txt"));
  });

  it.each([
    ["../outside/secret", "existing"],
    ["sub/../../outside/secret", "existing"],
    ["..", "existing"],
    ["/etc/passwd", "existing"],
    ["../new-file", "create"],
  ] as const)("refuses %s as escaping the workspace", async (p, mode) => {
    await expect(ws.resolve(p, mode)).rejects.toThrow(msg.pathEscapes(p));
  });

  it("refuses an absolute path that merely shares the workspace's prefix", async () => {
    const sibling = `${root}-sibling/x`;
    await expect(ws.resolve(sibling, "create")).rejects.toThrow(msg.pathEscapes(sibling));
  });

  it("refuses a symlink planted inside that points to a file outside", async () => {
    await expect(ws.resolve("to-secret", "existing")).rejects.toThrow(msg.symlinkEscapes("to-secret"));
  });

  it("refuses a new file under a symlinked directory that points outside", async () => {
    await expect(ws.resolve("to-outside-dir/new.txt", "create")).rejects.toThrow(
      msg.symlinkEscapes("to-outside-dir/new.txt"),
    );
    await expect(ws.resolve("to-outside-dir/a/b/c.txt", "create")).rejects.toThrow(
      msg.symlinkEscapes("to-outside-dir/a/b/c.txt"),
    );
  });

  it("refuses a missing file under a link out as escaping, not as missing (no probing outside)", async () => {
    await expect(ws.resolve("to-outside-dir/none.txt", "existing")).rejects.toThrow(
      msg.symlinkEscapes("to-outside-dir/none.txt"),
    );
  });

  it("refuses a dangling symlink, so it cannot create a file where it points", async () => {
    await expect(ws.resolve("dangling-out", "create")).rejects.toThrow(msg.danglingSymlink("dangling-out"));
    await expect(ws.resolve("dangling-out/x", "create")).rejects.toThrow(
      msg.danglingSymlink("dangling-out/x"),
    );
  });

  it("refuses a symlink loop with a clear error", async () => {
    await expect(ws.resolve("loop1", "existing")).rejects.toThrow(msg.symlinkLoop("loop1"));
  });

  it("resolves a path to be created under directories that do not exist yet", async () => {
    expect(await ws.resolve("new/deep/file.txt", "create")).toBe(path.join(root, "new", "deep", "file.txt"));
  });

  it("reports a missing file, a file used as a directory, an empty path and a NUL byte", async () => {
    await expect(ws.resolve("missing.txt", "existing")).rejects.toThrow(msg.notFound("missing.txt"));
    await expect(ws.resolve("plain/x", "create")).rejects.toThrow(msg.parentNotDirectory("plain/x"));
    await expect(ws.resolve("", "existing")).rejects.toThrow(msg.pathEmpty());
    await expect(ws.resolve("a\0b", "existing")).rejects.toThrow(msg.pathNul());
  });

  it("accepts a workspace reached through a symlink, by either of its names", async () => {
    const alias = path.join(base, "alias");
    await symlink(root, alias);
    const viaAlias = await Workspace.open(alias);
    expect(await viaAlias.resolve(path.join(alias, "plain"), "existing")).toBe(path.join(root, "plain"));
    expect(await viaAlias.resolve(path.join(root, "plain"), "existing")).toBe(path.join(root, "plain"));
    await expect(viaAlias.resolve("to-secret", "existing")).rejects.toThrow(msg.symlinkEscapes("to-secret"));
  });
});

describe("Workspace.open", () => {
  it("refuses a missing directory and a file", async () => {
    await expect(Workspace.open(path.join(base, "nope"))).rejects.toThrow(/cannot be used: ENOENT/);
    await expect(Workspace.open(path.join(root, "plain"))).rejects.toThrow(/is not a directory/);
  });
});
