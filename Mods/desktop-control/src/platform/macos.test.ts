// The macOS backend's command construction and output parsing, against outputs recorded in the
// shapes macOS prints them. Nothing here runs on a Mac: the Runner is scripted.
import { writeFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { RunFailed, type Runner } from "../exec.ts";
import { msg, setup, ToolError } from "../messages.ts";
import { appleEventError, JXA, MacPlatform, macCommands, parseHidIdle } from "./macos.ts";

// Recorded shapes: osascript prints a JXA script's last value on stdout and errors on stderr.
const OUT = {
  ioreg: `+-o IOHIDSystem  <class IOHIDSystem, id 0x1000002a5, registered, matched, active, busy 0 (0 ms), retain 20>
    {
      "HIDIdleTime" = 49517625000
    }
`,
  notAuthorized:
    "execution error: Error: Error: Not authorized to send Apple events to System Events. (-1743)\n",
  userCanceled: "execution error: Error: Error: User canceled. (-128)\n",
  noSuchApp: "Unable to find application named 'Nope'\n",
};

type Reply = string | RunFailed | ((args: readonly string[]) => Promise<string> | string);

/** A Runner answering by the osascript script (or program) called; records every argv. */
function scripted(replies: Map<string, Reply[]>) {
  const calls: string[][] = [];
  const run: Runner = async (file, args) => {
    calls.push([file, ...args]);
    const key = file === "osascript" ? args[3]! : file;
    const queue = replies.get(key);
    const reply = queue && (queue.length > 1 ? queue.shift()! : queue[0]);
    if (reply === undefined) throw new Error(`unscripted call: ${file} ${args.join(" ")}`);
    if (reply instanceof RunFailed) throw reply;
    return { stdout: typeof reply === "function" ? await reply(args) : reply, stderr: "" };
  };
  return { run, calls };
}
const fail = (file: string, stderr: string) => new RunFailed(file, 1, "", stderr);
const mac = (replies: [string, Reply[]][]) => {
  const s = scripted(new Map(replies));
  return { p: new MacPlatform({ run: s.run, closeWaitMs: 50, pollMs: 5 }), calls: s.calls };
};
const toolError = async (p: Promise<unknown>): Promise<string> => {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ToolError);
  return (e as Error).message;
};

describe("macOS command construction", () => {
  it("builds every call as an argv array", () => {
    expect(macCommands.open("Visual Studio Code")).toEqual(["open", "-a", "Visual Studio Code"]);
    expect(macCommands.capture(["/t/1.png", "/t/2.png"])).toEqual([
      "screencapture",
      "-x",
      "-t",
      "png",
      "/t/1.png",
      "/t/2.png",
    ]);
    expect(macCommands.idle()).toEqual(["ioreg", "-c", "IOHIDSystem", "-d", "4", "-r", "-k", "HIDIdleTime"]);
    expect(macCommands.jxa(JXA.quit, "Safari")).toEqual([
      "osascript",
      "-l",
      "JavaScript",
      "-e",
      JXA.quit,
      "Safari",
    ]);
  });

  it("passes an app name to osascript as an argument, never inside the script", async () => {
    const evil = 'Evil"); doShellScript("touch /tmp/pwned'; // what a crafted allowlist entry might try
    const { p, calls } = mac([
      [JXA.regularApps, [JSON.stringify([evil]), "[]"]],
      [JXA.quit, ["ok"]],
    ]);
    expect(await p.closeApp(evil)).toBe(msg.closed(evil));
    const quit = calls.find((c) => c[4] === JXA.quit)!;
    expect(quit).toEqual(["osascript", "-l", "JavaScript", "-e", JXA.quit, evil]);
    for (const c of calls) expect(c[4]).not.toContain("Evil");
  });
});

describe("macOS output parsing", () => {
  it("reads HIDIdleTime nanoseconds as milliseconds", () => {
    expect(parseHidIdle(OUT.ioreg)).toBe(49517);
    expect(() => parseHidIdle("")).toThrow();
  });

  it("reads the Apple Event error number from osascript's stderr", () => {
    expect(appleEventError(OUT.notAuthorized)).toBe(-1743);
    expect(appleEventError(OUT.userCanceled)).toBe(-128);
    expect(appleEventError("some other failure")).toBeNull();
  });

  it("screenshot captures every display into its own PNG", async () => {
    const { p, calls } = mac([
      [JXA.displays, ['{"count":2,"granted":true}\n']],
      // screencapture writes one file per display it is given.
      [
        "screencapture",
        [
          async (args) => {
            await Promise.all(args.slice(3).map((f, i) => writeFile(f, `png${i}`)));
            return "";
          },
        ],
      ],
    ]);
    const caps = await p.captureDisplays();
    expect(caps.map((c) => c.png.toString())).toEqual(["png0", "png1"]);
    expect(caps.every((c) => c.region === undefined)).toBe(true);
    const shot = calls.find((c) => c[0] === "screencapture")!;
    expect(shot.slice(0, 5)).toEqual([
      "screencapture",
      "-x",
      "-t",
      "png",
      expect.stringMatching(/display-1\.png$/),
    ]);
  });

  it("screenshot without Screen Recording is refused before capturing", async () => {
    const { p, calls } = mac([[JXA.displays, ['{"count":1,"granted":false}\n']]]);
    expect(await toolError(p.captureDisplays())).toBe(msg.screenRecordingDenied());
    expect(calls.some((c) => c[0] === "screencapture")).toBe(false);
  });

  it("list_running_apps reads System Events' JSON list, and names the missing grant", async () => {
    expect(
      await mac([[JXA.runningApps, ['["Finder","Safari","Visual Studio Code"]\n']]]).p.runningApps(),
    ).toEqual(["Finder", "Safari", "Visual Studio Code"]);
    const denied = mac([[JXA.runningApps, [fail("osascript", OUT.notAuthorized)]]]).p;
    expect(await toolError(denied.runningApps())).toBe(msg.automationDenied("System Events"));
  });

  it.each([
    ['{"app":"Safari","title":"Apple"}', { app: "Safari", title: "Apple" }],
    ['{"app":"Finder","title":null}', { app: "Finder", title: null }],
    ['{"app":null,"title":null}', { app: null, title: null }],
  ])("get_frontmost_window reads %s", async (out, want) => {
    expect(await mac([[JXA.front, [`${out}\n`]]]).p.frontWindow()).toEqual(want);
  });

  it("refuses a malformed answer with an error, not a crash", async () => {
    await expect(mac([[JXA.front, ['{"app":3}']]]).p.frontWindow()).rejects.toThrow(/unexpected answer/);
    await expect(mac([[JXA.runningApps, ["Finder, Safari"]]]).p.runningApps()).rejects.toThrow(
      /osascript printed/,
    );
  });

  it("open_app runs open -a and reports an unknown app", async () => {
    const { p, calls } = mac([["open", [""]]]);
    expect(await p.openApp("Safari")).toBe(msg.opened("Safari"));
    expect(calls).toEqual([["open", "-a", "Safari"]]);
    const missing = mac([["open", [fail("open", OUT.noSuchApp)]]]).p;
    expect(await toolError(missing.openApp("Nope"))).toBe(msg.notInstalled("Nope"));
  });

  it.each<[string, Reply[], Reply[], string]>([
    ["not running", ['["Finder"]'], [], msg.notRunning("Safari")],
    ["quits", ['["Finder","Safari"]', '["Finder"]'], ["ok"], msg.closed("Safari")],
    [
      "the user cancels the quit",
      ['["Safari"]'],
      [fail("osascript", OUT.userCanceled)],
      msg.stillRunning("Safari"),
    ],
    ["it keeps running", ['["Safari"]'], ["ok"], msg.stillRunning("Safari")],
  ])("close_app when %s", async (_when, running, quit, want) => {
    const { p, calls } = mac([
      [JXA.regularApps, running],
      [JXA.quit, quit],
    ]);
    expect(await p.closeApp("safari")).toBe(want.replace("Safari", "safari"));
    expect(calls.filter((c) => c[4] === JXA.quit)).toHaveLength(quit.length);
  });

  it("close_app without the app's Automation grant names that grant", async () => {
    const { p } = mac([
      [JXA.regularApps, ['["Safari"]']],
      [JXA.quit, [fail("osascript", OUT.notAuthorized)]],
    ]);
    expect(await toolError(p.closeApp("Safari"))).toBe(msg.automationDenied("Safari"));
  });
});

describe("macOS preflight", () => {
  it("reports both grants present", async () => {
    const { p } = mac([
      [JXA.displays, ['{"count":1,"granted":true}']],
      [JXA.runningApps, ['["Finder"]']],
    ]);
    expect(await p.preflight()).toEqual([
      setup.ok("Screen Recording"),
      setup.ok("Automation → System Events"),
    ]);
  });

  it("logs NOT granted for Screen Recording and System Events, and probes no app's own grant", async () => {
    const { p, calls } = mac([
      [JXA.displays, ['{"count":1,"granted":false}']],
      [JXA.runningApps, [fail("osascript", OUT.notAuthorized)]],
    ]);
    const lines = await p.preflight();
    expect(lines).toEqual([
      setup.notGranted("Screen Recording", "screenshot and the title half of get_frontmost_window"),
      setup.notGranted("Automation → System Events", "list_running_apps"),
    ]);
    expect(lines.every((l) => l.startsWith("[setup]") && l.includes("NOT granted"))).toBe(true);
    expect(calls.map((c) => c[4])).toEqual([JXA.displays, JXA.runningApps]);
  });
});
