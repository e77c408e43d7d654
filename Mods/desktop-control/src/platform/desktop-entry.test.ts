import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { applicationDirs, findDesktopEntry, parseDesktopEntry, splitExec } from "./desktop-entry.ts";

describe("splitExec", () => {
  it.each([
    ["xclock", ["xclock"]],
    ["xterm -T %c %F", ["xterm", "-T"]],
    ['xclock -title "Hello Clock" %U', ["xclock", "-title", "Hello Clock"]],
    ['sh -c "echo \\"$HOME\\""', ["sh", "-c", 'echo "$HOME"']],
    ["app --rate=50%%", ["app", "--rate=50%"]],
    ['app ""', ["app", ""]],
    ["  spaced   out  ", ["spaced", "out"]],
  ])("splits %j into %j", (exec, argv) => {
    expect(splitExec(exec)).toEqual(argv);
  });

  it("refuses broken quoting", () => {
    expect(splitExec('xclock "unterminated')).toBeNull();
  });
});

describe("parseDesktopEntry", () => {
  it("reads an application's name, argv and window class", () => {
    const text = [
      "[Desktop Entry]",
      "Type=Application",
      "Name=Hello Clock",
      "Name[de]=Hallo Uhr",
      'Exec=xclock -title "Hello Clock"',
      "StartupWMClass=XClock",
      "[Desktop Action new]",
      "Exec=ignored",
    ].join("\n");
    expect(parseDesktopEntry("hello-clock", text)).toEqual({
      id: "hello-clock",
      name: "Hello Clock",
      argv: ["xclock", "-title", "Hello Clock"],
      wmClass: "XClock",
    });
  });

  it.each([
    ["a link", "[Desktop Entry]\nType=Link\nName=X\nURL=http://x"],
    ["a hidden entry", "[Desktop Entry]\nType=Application\nName=X\nExec=x\nHidden=true"],
    ["an entry without Exec", "[Desktop Entry]\nType=Application\nName=X"],
  ])("ignores %s", (_what, text) => {
    expect(parseDesktopEntry("x", text)).toBeNull();
  });
});

describe("findDesktopEntry", () => {
  const roots: string[] = [];
  afterAll(async () => {
    for (const r of roots) await rm(r, { recursive: true, force: true });
  });

  it("finds by file id, Name or StartupWMClass, user entries first", async () => {
    const root = await mkdtemp(path.join(tmpdir(), "dc-apps-"));
    roots.push(root);
    const [user, system] = applicationDirs({
      XDG_DATA_HOME: path.join(root, "u"),
      XDG_DATA_DIRS: path.join(root, "s"),
    });
    await mkdir(user!, { recursive: true });
    await mkdir(system!, { recursive: true });
    const entry = (name: string, exec: string, cls = "") =>
      `[Desktop Entry]\nType=Application\nName=${name}\nExec=${exec}\n${cls ? `StartupWMClass=${cls}\n` : ""}`;
    await writeFile(path.join(system!, "org.example.Clock.desktop"), entry("Clock", "xclock", "XClock"));
    await writeFile(path.join(system!, "eyes.desktop"), entry("Eyes", "xeyes"));
    await writeFile(path.join(user!, "eyes.desktop"), entry("My Eyes", "xeyes -fg red"));
    const dirs = [user!, system!];
    expect((await findDesktopEntry("clock", dirs))?.id).toBe("org.example.Clock");
    expect((await findDesktopEntry("xclock", dirs))?.id).toBe("org.example.Clock");
    expect((await findDesktopEntry("org.example.Clock", dirs))?.argv).toEqual(["xclock"]);
    expect((await findDesktopEntry("eyes", dirs))?.argv).toEqual(["xeyes", "-fg", "red"]);
    expect(await findDesktopEntry("Clo", dirs)).toBeNull();
    expect(await findDesktopEntry("Clock", [path.join(root, "missing")])).toBeNull();
  });
});
