// The body's state machine on real windows: readings of a real Xvfb + openbox desktop fed to BodyMachine
// (time stepped by hand): she sits on a real xterm, follows it when it moves, gets down when it is covered
// where she sits and when it closes; blocked by a real window over the whole top edge.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ManualClock } from "../../src/body/clock.ts";
import { BodyMachine } from "../../src/body/machine.ts";
import type { World } from "../../src/body/world.ts";
import type { BodyActionResult } from "../../src/protocol/body.ts";
import { startXSession, untilWorld, type XSession } from "./testing.ts";
import { readWorld } from "./windows.ts";

let s: XSession;

async function startClient(argv: string[], title: string): Promise<string> {
  s.start(argv);
  const w = await until(`${title}'s window`, (w) => w.windows.some((x) => x.title === title));
  return w.windows.find((x) => x.title === title)!.id;
}
const until = (what: string, pred: (w: World) => boolean) => untilWorld(s.display, what, pred);

beforeAll(async () => {
  s = await startXSession();
});
afterAll(async () => {
  await s?.close();
});

describe("BodyMachine on real windows", () => {
  it("sits, follows a move, gets down when covered there and when the window closes; blocked by a full cover", async () => {
    const term = await startClient(["xterm", "-geometry", "80x24+100+200", "-title", "perch"], "perch");
    const clock = new ManualClock();
    const body = new BodyMachine({
      clock,
      settings: { wakeTimeoutMs: () => 60_000, reducedMotion: () => false },
      world: await readWorld(s.display),
      start: { x: 1000, y: 1200 },
      timings: { walkPxPerS: 1000, climbPxPerS: 1000 },
      perch: { strip: 4, width: 120 },
    });
    let result: BodyActionResult | undefined;
    void body.act({ action: "sit_on_window", app: "xterm" }).then((r) => {
      result = r;
    });
    clock.advance(5000);
    await new Promise((r) => setImmediate(r));
    expect(result).toBe("ok");
    const sat = body.snapshot();
    expect(sat).toMatchObject({
      posture: "sitting",
      perch: { windowId: term, app: "XTerm", title: "perch" },
    });
    expect(sat.position.y).toBe(200); // the frame's top, not the client's

    await s.x("xdotool", ["windowmove", term, "2100", "300"]);
    body.setWorld(await until("moved", (w) => w.windows[0]?.rect.x === 2100));
    expect(body.snapshot()).toMatchObject({ posture: "sitting", monitor: 1, position: { y: 300 } });
    expect(body.snapshot().position.x).toBe(sat.position.x + 2000);

    // a clock over where she sits: she climbs down
    const x = Math.round(body.snapshot().position.x);
    const cover = await startClient(
      ["xclock", "-geometry", `100x100+${x - 50}+250`, "-title", "cover"],
      "cover",
    );
    body.setWorld(await until("covered", (w) => w.windows[0]?.id === cover));
    expect(body.snapshot()).toMatchObject({ posture: "climbing", perch: null });
    clock.advance(5000);
    expect(body.snapshot()).toMatchObject({ posture: "standing", position: { y: 1024 } });

    // a full cover: blocked, nothing moves
    await s.x("xdotool", ["windowsize", cover, "1200", "200"]);
    await s.x("xdotool", ["windowmove", cover, "2000", "200"]);
    body.setWorld(await until("fully covered", (w) => (w.windows[0]?.rect.width ?? 0) > 1000));
    const before = body.snapshot().position;
    expect(await body.act({ action: "sit_on_window", app: "XTerm" })).toBe("blocked");
    expect(body.snapshot().position).toEqual(before);

    // uncovered again, she sits; then the window closes under her
    await s.x("wmctrl", ["-i", "-c", cover]);
    body.setWorld(await until("uncovered", (w) => w.windows.length === 1));
    void body.act({ action: "sit_on_window", app: "XTerm" });
    clock.advance(5000);
    expect(body.snapshot()).toMatchObject({ posture: "sitting" });
    await s.x("wmctrl", ["-i", "-c", term]);
    body.setWorld(await until("closed", (w) => w.windows.length === 0));
    expect(body.snapshot()).toMatchObject({ posture: "climbing", perch: null });
    clock.advance(5000);
    expect(body.snapshot()).toMatchObject({ posture: "standing", position: { y: 1024 } });
    expect(await body.act({ action: "sit_on_window", app: "XTerm" })).toBe("not_found");
  });
});
