import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Host, startHost } from "../host/server/server.ts";
import { VOCABULARY_FILE } from "../host/vocabulary-source.ts";
import { listPresets, savePreset } from "../src/app/presets/presets.ts";
import { DEFAULT_VOCABULARY } from "../src/app/vocabulary/vocabulary.ts";
import { BODY_EVENT, type BodyEvent, OCCLUSION_EVENT } from "../src/protocol/body.ts";
import { VOICE_KEYS } from "../src/protocol/voice.ts";
import { LOADING_LABEL } from "../src/ui/stage-silhouette.ts";
import {
  chatStream,
  type RecordedRequest,
  type ScriptedBackend,
  startScriptedBackend,
} from "../tools/scripted-backend/server.ts";
import { CHROMIUM_ARGS } from "../tools/testing/chromium.ts";
import { probeStage } from "../tools/testing/stage-probe.ts";
import { testModelPaths, writeTestModels } from "../tools/vrm-gen/test-models.ts";

// Main's desktop page (desktop-view.ts) built and served by the real host, in Chromium, with the chat pointed at
// the scripted backend. The host here has no desktop (startHost, as `yui serve`): its body_attach answers
// `unsupported` at once and its body commands answer as with no executor; the host's side with a desktop is
// tests/desktop-body.test.ts. What is checked here is the page's half: the frames it sends over the bridge
// (seen with Playwright's WebSocket events) and what its stage shows for the host's `yui://body` events.

const REPO = resolve(import.meta.dirname, "..");
const SHOTS = join(REPO, "test-output", "ui");
let browser: Browser;
let backend: ScriptedBackend;
let host: Host;
let dataDir: string;
let dist: string;
let presetId: string;

interface Sent {
  type: string;
  id?: number;
  command?: string;
  args?: Record<string, unknown>;
}
interface Received {
  type: string;
  id?: number;
  ok?: boolean;
  value?: unknown;
  error?: string;
}

/** Opens main's desktop window; every frame its bridge sends and receives is kept. */
async function openMain(): Promise<{ page: Page; sent: Sent[]; received: Received[] }> {
  const page = await browser.newPage({ viewport: { width: 320, height: 480 } });
  await probeStage(page);
  const sent: Sent[] = [];
  const received: Received[] = [];
  page.on("websocket", (ws) => {
    ws.on("framesent", (f) => sent.push(JSON.parse(String(f.payload)) as Sent));
    ws.on("framereceived", (f) => received.push(JSON.parse(String(f.payload)) as Received));
  });
  await page.goto(host.launchUrl(`${host.url}?view=desktop&role=main&preset=${presetId}`));
  await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 60_000 });
  return { page, sent, received };
}
const invokes = (sent: Sent[], command: string) =>
  sent.filter((f) => f.type === "invoke" && f.command === command);
const answerTo = (received: Received[], id: number | undefined) =>
  received.find((f) => f.type === "result" && f.id === id);

/** A body event for main's preset (or another), as the host's desktop sends it. */
const event = (e: Partial<BodyEvent>): BodyEvent => ({
  presetId,
  posture: "standing",
  peek: null,
  bed: null,
  moving: false,
  facing: 0,
  occluded: false,
  ...e,
});

/** What the page's stage shows now. */
const stageNow = (page: Page) =>
  page.evaluate(() => {
    const s = (
      window as unknown as {
        __yuiStage?: {
          inspect(): { loaded: string | null; posture: string | null; bed: number; running: boolean };
        };
      }
    ).__yuiStage?.inspect();
    return s ? { loaded: s.loaded, posture: s.posture, bed: s.bed, running: s.running } : null;
  });

/** Sends a message through her input, as the user does. */
async function say(page: Page, text: string): Promise<void> {
  await page.evaluate(() =>
    (window as unknown as { __yuiShell(m: unknown): void }).__yuiShell({ type: "open-input" }),
  );
  await page.getByTestId("input").fill(text);
  await page.getByTestId("input").press("Enter");
}
/** The result the page sent back for tool call `id` (in a later request to the backend). */
const toolResult = (id: string) => {
  for (const r of backend.requests as RecordedRequest[]) {
    const msgs = (r.body as { messages?: { role: string; tool_call_id?: string; content: unknown }[] })
      ?.messages;
    const m = msgs?.find((x) => x.role === "tool" && x.tool_call_id === id);
    if (m) return m.content;
  }
  return undefined;
};
/** Scripts one turn: the model calls `name` with `args` as call `id`, then answers "Done." after its result. */
function scriptCall(id: string, name: string, args: unknown): void {
  backend.enqueue(
    { body: chatStream({ calls: [{ id, name, arguments: JSON.stringify(args) }] }) },
    { body: chatStream({ text: ["Done."] }) },
  );
}

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  dataDir = mkdtempSync(join(tmpdir(), "yui-desktop-view-"));
  dist = mkdtempSync(join(tmpdir(), "yui-desktop-view-dist-"));
  // This page as it is now (not a dist/ left from an earlier build).
  const { build } = await import("vite");
  await build({ configFile: join(REPO, "vite.config.ts"), logLevel: "warn", build: { outDir: dist } });
  await writeTestModels(REPO);
  backend = await startScriptedBackend();
  host = await startHost({
    port: 0,
    dataDir,
    distDir: dist,
    defaultAvatar: testModelPaths(REPO).default,
    env: {},
    browserCommands: false,
  });
  const preset = listPresets(host.store)[0]!;
  presetId = preset.id;
  savePreset(host.store, { ...preset, backend: { transport: "chat", base_url: backend.url } });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await host?.close();
  await backend?.close();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(dist, { recursive: true, force: true });
});

describe("main's desktop page and her body", { timeout: 180_000 }, () => {
  it("holds body_attach for its preset, and lends the host's executor to body_action and look only once the body's events come", async () => {
    const { page, sent, received } = await openMain();
    // The hold: one body_attach for main's preset; a host without a desktop answers unsupported at once.
    await expect.poll(() => invokes(sent, "body_attach").length).toBe(1);
    const attach = invokes(sent, "body_attach")[0]!;
    expect(attach.args).toEqual({ presetId });
    await expect
      .poll(() => answerTo(received, attach.id))
      .toEqual({
        type: "result",
        id: attach.id,
        ok: true,
        value: "unsupported",
      });

    // No body event yet: no executor, the tools answer as with none and nothing goes to the host's body.
    scriptCall("a1", "body_action", { action: "stand" });
    await say(page, "please stand");
    await expect.poll(() => toolResult("a1"), { timeout: 60_000 }).toBe("unsupported");
    expect(invokes(sent, "body_action")).toEqual([]);
    // A message from the user pokes her.
    await expect.poll(() => invokes(sent, "body_poke").length).toBeGreaterThanOrEqual(1);

    // The host's body speaks: from now on the executor is the host's, over the bridge.
    host.bridge.broadcast(BODY_EVENT, event({ posture: "sitting" }));
    await expect.poll(() => stageNow(page).then((s) => s?.posture), { timeout: 60_000 }).toBe("sit");
    scriptCall("a2", "body_action", { action: "move_to", spot: "top_left", monitor: 1 });
    await say(page, "go to the corner");
    await expect.poll(() => invokes(sent, "body_action").length, { timeout: 60_000 }).toBe(1);
    const action = invokes(sent, "body_action")[0]!;
    expect(action.args).toEqual({ action: "move_to", spot: "top_left", monitor: 1 });
    // This host has no body attached: its bare word comes back as the tool's result.
    await expect.poll(() => toolResult("a2"), { timeout: 60_000 }).toBe("unsupported");
    // Playwright reports the frame to the test on its own schedule, not before the page has used it.
    await expect.poll(() => answerTo(received, action.id)).toMatchObject({ ok: true, value: "unsupported" });

    scriptCall("l1", "look", { at: "body" });
    await say(page, "where are you?");
    await expect.poll(() => toolResult("l1"), { timeout: 60_000 }).toBe("error: unsupported");
    await expect.poll(() => invokes(sent, "body_read").map((f) => f.args)).toEqual([{ at: "body" }]);
    scriptCall("l2", "look", { at: "perch_targets" });
    await say(page, "what can you sit on?");
    await expect.poll(() => toolResult("l2"), { timeout: 60_000 }).toBe("error: unsupported");
    await expect
      .poll(() => invokes(sent, "body_read").map((f) => f.args))
      .toEqual([{ at: "body" }, { at: "perch_targets" }]);
    await page.close();
  });

  it("plays the host's body events on her stage, pokes on a click on her, and holds the body again after a reconnect", async () => {
    const { page, sent } = await openMain();
    await expect
      .poll(() => stageNow(page).then((s) => s?.loaded ?? null), { timeout: 120_000 })
      .not.toBeNull();
    const shows = async (e: Partial<BodyEvent>, posture: string | null) => {
      host.bridge.broadcast(BODY_EVENT, event(e));
      await expect.poll(() => stageNow(page).then((s) => s?.posture), { timeout: 30_000 }).toBe(posture);
    };
    await shows({ posture: "walking", moving: true, facing: -1 }, "walk_left");
    await shows({ posture: "peeking", peek: "right" }, "peek_right");
    // Another preset's body is not hers.
    host.bridge.broadcast(BODY_EVENT, { ...event({ posture: "dragging" }), presetId: "someone-else" });
    await shows({ posture: "climbing", moving: true }, "climb");
    // A fall after the user let go of her: she dangles, then lands.
    await shows({ posture: "standing", moving: true, fall: "falling" }, "dangle");
    await shows({ posture: "standing", moving: true, fall: "landing" }, "land");
    // Hung lower than the edge she sits on (her head kept on screen): nothing of her below it is drawn.
    const clipPath = () => page.getByTestId("stage").evaluate((el) => (el as HTMLElement).style.clipPath);
    await shows({ posture: "sitting", clip: 0.4 }, "sit");
    expect(await clipPath()).toContain("40%");
    await shows({ posture: "sitting", clip: 0 }, "sit");
    await expect.poll(clipPath).toBe("");
    await shows({ posture: "lying", bed: "asleep" }, "sleep");
    await expect.poll(() => stageNow(page).then((s) => s?.bed), { timeout: 30_000 }).toBeGreaterThan(0);
    await page.screenshot({ path: join(SHOTS, "desktop-asleep.png") });
    // Covered: no frames until she shows again.
    host.bridge.broadcast(BODY_EVENT, event({ posture: "lying", bed: "asleep", occluded: true }));
    await expect.poll(() => stageNow(page).then((s) => s?.running), { timeout: 30_000 }).toBe(false);
    await shows({}, null);
    await expect.poll(() => stageNow(page).then((s) => s?.running), { timeout: 30_000 }).toBe(true);
    await expect.poll(() => stageNow(page).then((s) => s?.bed), { timeout: 30_000 }).toBe(0);

    // A click on her (her drawn silhouette, not the space around her) pokes her body.
    const pokes = invokes(sent, "body_poke").length;
    const box = (await page.getByTestId("stage").boundingBox())!;
    // Her silhouette follows what is drawn, sampled after frames: clicked again until it has caught up with her
    // standing up from the bed (the lying silhouette is elsewhere).
    await expect
      .poll(
        async () => {
          await page.mouse.click(box.x + box.width / 2, box.y + box.height * 0.45);
          return invokes(sent, "body_poke").length;
        },
        { timeout: 30_000, interval: 500 },
      )
      .toBeGreaterThan(pokes);

    // The host restarts on the same port: the page connects again and holds the body again. (Its secret is
    // kept for this: the page's reconnect is the subject; a real restart signs windows out, app.e2e.test.ts.)
    const { port, secret } = host;
    await host.close();
    host = await startHost({
      port,
      dataDir,
      distDir: dist,
      defaultAvatar: testModelPaths(REPO).default,
      env: {},
      browserCommands: false,
      secret,
    });
    await expect.poll(() => invokes(sent, "body_attach").length, { timeout: 60_000 }).toBe(2);
    expect(invokes(sent, "body_attach")[1]!.args).toEqual({ presetId });
    await page.close();
  });

  it("her face relaxes after its hold, on her desktop stage and on the Chat window's alike", async () => {
    // Surprise holds 1 s after the reply (the vocabulary's `hold`); her voice is off, so the text is her speech.
    const vocabulary = {
      ...DEFAULT_VOCABULARY,
      emotions: DEFAULT_VOCABULARY.emotions.map((e) => (e.id === "surprised" ? { ...e, hold: 1 } : e)),
    };
    writeFileSync(join(dataDir, VOCABULARY_FILE), JSON.stringify(vocabulary));
    host.store.set(VOICE_KEYS.preset(presetId), { enabled: false });
    const { page: desk } = await openMain();
    const chat = await browser.newPage({ viewport: { width: 900, height: 700 } });
    await probeStage(chat);
    await chat.goto(host.launchUrl(`${host.url}?view=main`));
    await chat.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 60_000 });
    for (const page of [desk, chat])
      await expect
        .poll(() => stageNow(page).then((s) => s?.loaded ?? null), { timeout: 120_000 })
        .not.toBeNull();
    backend.enqueue({
      body: chatStream({
        text: ["Oh! ", "A surprise for me?"],
        calls: [
          { id: "f1", name: "generate_express", arguments: JSON.stringify({ emotion_id: "surprised" }) },
        ],
        finish: "stop",
      }),
    });
    await say(desk, "Guess what");
    /** The faces a stage showed, in order, and the weight of surprise on it now. */
    const faces = (page: Page) =>
      page.evaluate(() => {
        const s = (
          window as unknown as {
            __yuiStage: {
              inspect(): {
                emotion: string | null;
                expressions: Record<string, number>;
                events: { type: string; id: string }[];
              };
            };
          }
        ).__yuiStage.inspect();
        return {
          shown: s.events
            .filter((e) => e.type === "emotion" || e.type === "relax")
            .map((e) => `${e.type}:${e.id}`),
          emotion: s.emotion,
          surprised: s.expressions.surprised ?? 0,
        };
      });
    // The desktop stage played the cue and relaxed after its hold; the Chat window's stage showed the same.
    for (const page of [desk, chat])
      await expect
        .poll(() => faces(page), { timeout: 60_000 })
        .toEqual({ shown: ["emotion:surprised", "relax:surprised"], emotion: null, surprised: 0 });
    await chat.screenshot({ path: join(SHOTS, "chat-face-relaxed.png") });
    host.store.delete(VOICE_KEYS.preset(presetId));
    rmSync(join(dataDir, VOCABULARY_FILE));
    await chat.close();
    await desk.close();
  });

  it("waits for her with her silhouette, not a text pill: a plain figure the first time, her own shape after", async () => {
    const context = await browser.newContext({ viewport: { width: 198, height: 308 } });
    // Her model is held back until the wait has been looked at.
    const gate = { release: () => {}, held: Promise.resolve() };
    const hold = () => {
      gate.held = new Promise<void>((r) => {
        gate.release = r;
      });
    };
    await context.route("**/avatar/*.vrm", async (route) => {
      await gate.held;
      await route.continue();
    });
    const open = async () => {
      const page = await context.newPage();
      await probeStage(page);
      await page.goto(host.launchUrl(`${host.url}?view=desktop&role=main&preset=${presetId}`));
      await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 60_000 });
      return page;
    };
    const waiting = (page: Page) =>
      page.getByTestId("stage-silhouette").evaluateAll((els) =>
        els.map((el) => ({
          kept: (el as HTMLElement).dataset.kept,
          label: el.getAttribute("aria-label"),
          text: el.textContent,
          box: el.getBoundingClientRect().toJSON() as { width: number; height: number },
        })),
      );
    hold();
    const first = await open();
    await expect.poll(() => waiting(first).then((w) => w.map((x) => x.kept))).toEqual(["false"]);
    const [figure] = await waiting(first);
    expect(figure).toMatchObject({ label: LOADING_LABEL, text: "" });
    expect(await first.locator(".stage-note:not(.stage-silhouette)").count()).toBe(0);
    await first.screenshot({ path: join(SHOTS, "desktop-loading-figure.png") });
    gate.release();
    await expect.poll(() => waiting(first), { timeout: 120_000 }).toEqual([]);
    // Her shape from her first frame is kept for the next wait.
    const kept = () =>
      first.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith("yui:silhouette:")).length);
    await expect.poll(kept).toBe(1);
    await first.close();

    hold();
    const again = await open();
    await expect.poll(() => waiting(again).then((w) => w.map((x) => x.kept))).toEqual(["true"]);
    const [shape] = await waiting(again);
    // Her own shape where she stands: most of the window's height, not its whole width.
    expect(shape!.box.height).toBeGreaterThan(308 * 0.5);
    expect(shape!.box.width).toBeLessThan(198);
    await again.screenshot({ path: join(SHOTS, "desktop-loading-silhouette.png") });
    gate.release();
    await expect.poll(() => waiting(again), { timeout: 120_000 }).toEqual([]);
    await context.close();
  });

  it("puts her input away on a click elsewhere in her window, off her and the input", async () => {
    const { page } = await openMain();
    const open = () => page.getByTestId("desktop").evaluate((el) => el.classList.contains("input-open"));
    const shellOpens = () =>
      page.evaluate(() =>
        (window as unknown as { __yuiShell(m: unknown): void }).__yuiShell({ type: "open-input" }),
      );
    await shellOpens();
    await expect.poll(open).toBe(true);
    // The control: a click in the input keeps it open, and typing works.
    await page.getByTestId("input").click();
    await page.getByTestId("input").fill("half a thought");
    expect(await open()).toBe(true);
    // A click in her window away from her (the window's top corner) puts it away.
    await page.mouse.click(3, 3);
    await expect.poll(open).toBe(false);
    // Open again: what was typed is still there; a click in the other top corner (off her) puts it away too.
    await shellOpens();
    await expect.poll(open).toBe(true);
    expect(await page.getByTestId("input").inputValue()).toBe("half a thought");
    await page.mouse.click(316, 3);
    await expect.poll(open).toBe(false);
    await page.close();
  });

  it("stops drawing a pet window while other windows cover all of it (yui://occlusion), and draws again after", async () => {
    const page = await browser.newPage({ viewport: { width: 320, height: 480 } });
    await probeStage(page);
    try {
      await page.goto(host.launchUrl(`${host.url}?view=desktop&role=pet&preset=${presetId}`));
      await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 60_000 });
      await expect
        .poll(() => stageNow(page).then((s) => s?.loaded ?? null), { timeout: 60_000 })
        .not.toBeNull();
      await expect.poll(() => stageNow(page).then((s) => s?.running), { timeout: 30_000 }).toBe(true);
      // Another preset's cover, and a body event (main's, which a pet window does not follow), are not its own.
      host.bridge.broadcast(OCCLUSION_EVENT, { presetId: `${presetId}-other`, occluded: true });
      host.bridge.broadcast(BODY_EVENT, event({ occluded: true }));
      // The control: a change the host sends after them on the same connection (her name, which the panel's
      // hidden head shows) reaches the page, so the page has handled both events before it.
      const preset = listPresets(host.store).find((p) => p.id === presetId)!;
      savePreset(host.store, { ...preset, name: "Renamed" });
      try {
        await expect.poll(() => page.locator(".panel-head .name").textContent()).toBe("Renamed");
        expect((await stageNow(page))?.running).toBe(true);
      } finally {
        savePreset(host.store, preset);
      }
      host.bridge.broadcast(OCCLUSION_EVENT, { presetId, occluded: true });
      await expect.poll(() => stageNow(page).then((s) => s?.running), { timeout: 30_000 }).toBe(false);
      host.bridge.broadcast(OCCLUSION_EVENT, { presetId, occluded: false });
      await expect.poll(() => stageNow(page).then((s) => s?.running), { timeout: 30_000 }).toBe(true);
    } finally {
      await page.close();
    }
  });

  it("lets go of the body when the page goes: it cancels its body_attach on pagehide", async () => {
    const { page, sent } = await openMain();
    await expect.poll(() => invokes(sent, "body_attach").length).toBe(1);
    const id = invokes(sent, "body_attach")[0]!.id;
    // The browser fires pagehide as the page goes; fired here while its connection is still open, so the frame
    // it causes can be seen: the bridge's cancel of that call.
    await page.evaluate(() => dispatchEvent(new PageTransitionEvent("pagehide")));
    await expect.poll(() => sent.some((f) => f.type === "cancel" && f.id === id)).toBe(true);
    await page.close();
  });
});
