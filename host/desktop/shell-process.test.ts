// Which shell the host starts (the Electron shell's bundle itself is checked in shell/electron/launch.test.ts).
import { describe, expect, it } from "vitest";
import { GTK_SHELL_ARGV, shellArgv } from "./shell-process.ts";

describe("which shell the host starts", () => {
  it("the GTK shell on Linux, and wherever YUI_SHELL=gtk says so", () => {
    expect(shellArgv("linux", {})).toEqual(GTK_SHELL_ARGV);
    expect(shellArgv("darwin", { YUI_SHELL: "gtk" })).toEqual(GTK_SHELL_ARGV);
  });
});
