/**
 * The browser build end to end: real Chromium (playwright-core on /usr/bin/chromium) against the real host and
 * the scripted backend. Screenshots of the main, settings and quick-controls views go to test-output/ui/.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { freePort } from "@yui/mod-kit/testing";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { TEST_VERDICTS } from "../host/server/app-commands.ts";
import { PROXY_ERRORS } from "../host/server/proxy.ts";
import { type Host, startHost } from "../host/server/server.ts";
import { hostFetch } from "../host/server/testing.ts";
import { listPresets, openPet, savePreset } from "../src/app/presets/presets.ts";
import { USER_REASON } from "../src/app/relations/relations.ts";
import { RATE_RELATION_RESULTS } from "../src/app/tools/relation.ts";
import { MODEL_FILE_ERRORS } from "../src/avatar/model-file.ts";
import { CHAT_ERRORS, CUT_OFF, SIGNED_OUT } from "../src/ui/errors.ts";
import { startPushBackend } from "../tools/push-backend/server.ts";
import {
  chatStream,
  type RecordedRequest,
  type ScriptedBackend,
  sse,
  startScriptedBackend,
} from "../tools/scripted-backend/server.ts";
import { CHROMIUM_ARGS } from "../tools/testing/chromium.ts";
import { probeStage } from "../tools/testing/stage-probe.ts";
import { buildCharacter } from "../tools/vrm-gen/character.ts";
import { writeVrm } from "../tools/vrm-gen/write-vrm.ts";

const REPO = resolve(import.meta.dirname, "..");
const SHOTS = join(REPO, "test-output", "ui");

// Each test starts from nothing: its own data directory, host and scripted backend (the browser is shared,
// and every page is its own browser context). A test that needs a conversation, a relation or a second
// character makes it itself, so the tests pass in any order and alone.
let browser: Browser;
let backend: ScriptedBackend;
let host: Host;
let dataDir: string;

type Msg = { role: string; content: unknown };
const body = (r: RecordedRequest) =>
  r.body as { model?: string; messages: Msg[]; tools?: { function: { name: string } }[] };
const toolNames = (r: RecordedRequest) => (body(r).tools ?? []).map((t) => t.function.name);

async function restartHost(port = 0, close = false): Promise<void> {
  if (close) await host.close();
  host = await startHost({ port, dataDir, env: {}, browserCommands: false });
}

// Every page a test opened is closed after it, passed or failed, so no stale window runs the next test's turns.
const pages: Page[] = [];
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "yui-e2e-"));
  backend = await startScriptedBackend();
  await restartHost();
});
afterEach(async () => {
  for (const p of pages.splice(0)) await p.close().catch(() => {});
  await host?.close();
  await backend?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Opens a view; the 3D stage only where a test shows it (it is the avatar suite's subject, and costly here). */
async function open(view: string, stage = false): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
  pages.push(page);
  await probeStage(page);
  // Through a one-time launch URL, as `npm start` opens the browser build: the window is signed in.
  await page.goto(host.launchUrl(`${host.url}?view=${view}${stage ? "" : "&stage=off"}`));
  // A loaded machine can take long to start a page; the test timeout (90 s) is the real bound.
  await page.waitForFunction(() => document.body.dataset.ready === "true", null, { timeout: 60_000 });
  return page;
}

/** Points a preset at a backend from the host's side (as another window would). */
function pointAt(id: string, name: string, url: string): void {
  savePreset(host.store, {
    id,
    name,
    avatar: "",
    voice: "",
    persona: "",
    backend: { transport: "chat", base_url: url },
  });
}

async function send(page: Page, presetId: string, text: string): Promise<void> {
  const panel = page.getByTestId(`panel-${presetId}`);
  await panel.getByTestId("input").fill(text);
  await panel.getByTestId("input").press("Enter");
}

const lastAssistant = (page: Page, presetId: string) =>
  page.getByTestId(`panel-${presetId}`).locator(".msg.assistant").last();

/** Scripts a reply that rates the user +1 for "a kind word", then the empty answer after the tool result. */
function scriptKindWord(): void {
  const rate = JSON.stringify({ toward: "user", delta: 1, why: "a kind word" });
  backend.enqueue(
    {
      body: chatStream({
        text: ["Thank you."],
        calls: [{ id: "c1", name: "rate_relation", arguments: rate }],
      }),
    },
    { body: chatStream({ text: [] }) },
  );
}

beforeAll(async () => {
  if (!existsSync(join(REPO, "dist", "index.html"))) {
    const { build } = await import("vite");
    await build({ configFile: join(REPO, "vite.config.ts"), logLevel: "warn" });
  }
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

describe("the browser build", { timeout: 90_000 }, () => {
  it("first run to first reply: settings point YUI at the backend, then the reply streams into the chat", async () => {
    const settings = await open("settings");
    await settings.getByTestId("base-url").fill(backend.url);
    await settings.getByTestId("test-connection").click();
    await expect.poll(() => settings.getByTestId("verdict").textContent()).toBe(TEST_VERDICTS.ok(1));
    await settings.getByTestId("model-select").selectOption("scripted-model");
    await settings.getByTestId("save-backend").click();
    await expect.poll(() => settings.getByTestId("verdict").textContent()).toBe("Saved.");
    await settings.screenshot({ path: join(SHOTS, "settings.png"), fullPage: true });

    const main = await open("main", true);
    backend.enqueue({
      body: chatStream({
        text: ["Hi! ", "I'm YUI. ", "Nice to meet you."],
        calls: [{ id: "e1", name: "generate_express", arguments: JSON.stringify({ emotion_id: "happy" }) }],
        finish: "stop",
      }),
    });
    const before = backend.requests.length;
    await send(main, "yui", "Hello there");
    await expect.poll(() => lastAssistant(main, "yui").textContent()).toBe("Hi! I'm YUI. Nice to meet you.");
    const req = backend.requests[before]!;
    expect(req.path).toBe("/v1/chat/completions");
    expect(body(req).model).toBe("scripted-model");
    // The browser build hands rate_relation and address_character after generate_express.
    expect(toolNames(req)).toEqual(["generate_express", "rate_relation", "address_character"]);
    expect(body(req).messages.at(-1)).toEqual({ role: "user", content: "Hello there" });
    // The reply's cue reached main's stage (src/avatar's inspection hook).
    const emotion = () =>
      main.evaluate(
        () =>
          (
            window as unknown as { __yuiStage?: { inspect(): { emotion: string | null } } }
          ).__yuiStage?.inspect().emotion ?? null,
      );
    await expect.poll(emotion, { timeout: 30_000 }).toBe("happy");
    await main.screenshot({ path: join(SHOTS, "main.png") });
    await main.close();
    await settings.close();
  });

  it("streamed text appears incrementally, before the backend has finished", async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const gated: Server = createServer(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chatStream({ text: ["The first half"], finish: null, done: false }));
      await gate;
      res.end(chatStream({ text: [" and the rest."] }));
    });
    await new Promise<void>((r) => gated.listen(0, "127.0.0.1", r));
    pointAt("yui", "YUI", `http://127.0.0.1:${(gated.address() as AddressInfo).port}/v1`);
    const main = await open("main");
    await send(main, "yui", "Tell me slowly");
    await expect
      .poll(() => lastAssistant(main, "yui").textContent(), { timeout: 20_000 })
      .toBe("The first half");
    release();
    await expect.poll(() => lastAssistant(main, "yui").textContent()).toBe("The first half and the rest.");
    await main.close();
    await new Promise<void>((r) => gated.close(() => r()));
  });

  it("Stop ends a reply at once and the host drops the backend's stream", async () => {
    // Resolved when the host drops the backend's stream: awaited, not polled for a fixed time.
    let upstreamClosed!: () => void;
    const closed = new Promise<void>((r) => {
      upstreamClosed = r;
    });
    const hanging: Server = createServer((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write(chatStream({ text: ["I could go on and on"], finish: null, done: false }));
      res.on("close", () => upstreamClosed());
      void req;
    });
    await new Promise<void>((r) => hanging.listen(0, "127.0.0.1", r));
    pointAt("yui", "YUI", `http://127.0.0.1:${(hanging.address() as AddressInfo).port}/v1`);
    const main = await open("main");
    const panel = main.getByTestId("panel-yui");
    await send(main, "yui", "Talk forever");
    await expect.poll(() => lastAssistant(main, "yui").textContent()).toBe("I could go on and on");
    await panel.getByTestId("stop").click();
    await expect.poll(() => panel.locator(".msg.assistant.stopped").count()).toBe(1);
    expect(await panel.getByTestId("send").isEnabled()).toBe(true);
    await closed;
    await new Promise<void>((r) => hanging.close(() => r()));
  });

  it("a backend that is down or refuses the key is shown in words, never an endless spinner", async () => {
    const deadUrl = `http://127.0.0.1:${await freePort()}/v1`;
    pointAt("yui", "YUI", deadUrl);
    const main = await open("main");
    await send(main, "yui", "Are you there?");
    const err = main.getByTestId("panel-yui").getByTestId("error").last();
    await expect.poll(() => err.textContent()).toBe(PROXY_ERRORS.unreachable(deadUrl, "connection refused"));
    expect(await main.getByTestId("panel-yui").locator(".msg.pending").count()).toBe(0);

    pointAt("yui", "YUI", backend.url);
    backend.enqueue({ status: 401, body: JSON.stringify({ error: { message: "invalid api key" } }) });
    await send(main, "yui", "And now?");
    await expect.poll(() => err.textContent()).toBe(CHAT_ERRORS.auth(401));
    await main.close();
  });

  it("settings and the conversation persist across a reload and a host restart (which signs windows out)", async () => {
    pointAt("yui", "YUI", backend.url);
    const talk = await open("main");
    backend.enqueue({ body: chatStream({ text: ["Hi! I'm YUI. Nice to meet you."] }) });
    await send(talk, "yui", "Hello there");
    await expect.poll(() => lastAssistant(talk, "yui").textContent()).toBe("Hi! I'm YUI. Nice to meet you.");
    await talk.close();
    const settings = await open("settings");
    await settings.getByTestId("model").fill("kept-model");
    await settings.getByTestId("save-backend").click();
    await expect.poll(() => settings.getByTestId("verdict").textContent()).toBe("Saved.");
    await settings.reload();
    await settings.waitForFunction(() => document.body.dataset.ready === "true");
    expect(await settings.getByTestId("model").inputValue()).toBe("kept-model");

    const port = host.port;
    await restartHost(port, true);
    // The new start has a new secret: the open page, signed in to the old one, says it is not signed in (a
    // host restart signs its windows out), and opened from the new launch URL it shows what was kept.
    await expect
      .poll(() => settings.getByTestId("connection").textContent(), { timeout: 20_000 })
      .toBe("not signed in");
    expect(await settings.getByTestId("toast").last().textContent()).toBe(SIGNED_OUT);
    await settings.goto(host.launchUrl(`${host.url}?view=settings&stage=off`));
    await settings.waitForFunction(() => document.body.dataset.ready === "true");
    expect(await settings.getByTestId("connection").textContent()).toBe("connected");
    expect(await settings.getByTestId("model").inputValue()).toBe("kept-model");

    const main = await open("main");
    const log = main.getByTestId("panel-yui").getByTestId("log");
    await expect.poll(() => log.textContent()).toContain("Hi! I'm YUI. Nice to meet you.");
    expect(await log.textContent()).toContain("Hello there");
    await settings.close();
    await main.close();
  });

  it("switches change what calls answer but never the declared tools", async () => {
    pointAt("yui", "YUI", backend.url);
    const script = scriptKindWord;
    const main = await open("main");
    const quick = await open("quick");
    const start = backend.requests.length;
    script();
    await send(main, "yui", "You are kind");
    await expect.poll(() => backend.requests.length, { timeout: 20_000 }).toBe(start + 2);
    await expect.poll(() => main.getByTestId("panel-yui").locator(".msg.pending").count()).toBe(0);

    await quick.getByTestId("switch-relations").setChecked(false, { force: true });
    await expect.poll(() => host.store.get("yui.relations")).toEqual({ enabled: false });
    script();
    await send(main, "yui", "You are kind again");
    await expect.poll(() => backend.requests.length, { timeout: 20_000 }).toBe(start + 4);
    const [on1, on2, off1, off2] = backend.requests.slice(start, start + 4);
    const toolMsg = (r: RecordedRequest) => body(r).messages.find((m) => m.role === "tool")?.content;
    expect(toolMsg(on2!)).toBe("neutral");
    expect(toolMsg(off2!)).toBe(RATE_RELATION_RESULTS.relationsOff);
    expect(JSON.stringify(body(off1!).tools)).toBe(JSON.stringify(body(on1!).tools));
    const ctx = (r: RecordedRequest) =>
      body(r)
        .messages.filter((m) => m.role === "system")
        .map((m) => m.content)
        .join("\n");
    expect(ctx(on1!)).toContain("tool switches: relations=on");
    expect(ctx(off1!)).toContain("tool switches: relations=off");
    await quick.getByTestId("switch-relations").setChecked(true, { force: true });
    await expect.poll(() => host.store.get("yui.relations")).toEqual({ enabled: true });
    await expect.poll(() => quick.getByTestId("quick-yui").getByTestId("band").textContent()).toBe("neutral");
    await quick.screenshot({ path: join(SHOTS, "quick.png") });
    await quick.close();
    await main.close();
  });

  it("the relations section shows each reason, and the user's slider sets the value", async () => {
    pointAt("yui", "YUI", backend.url);
    const main = await open("main");
    const start = backend.requests.length;
    scriptKindWord();
    await send(main, "yui", "You are kind");
    await expect.poll(() => backend.requests.length, { timeout: 20_000 }).toBe(start + 2);
    await expect.poll(() => main.getByTestId("panel-yui").locator(".msg.pending").count()).toBe(0);
    const settings = await open("settings");
    const row = settings.getByTestId("relation-user");
    await expect.poll(() => row.textContent()).toContain("a kind word");
    await row.getByTestId("slider-user").fill("12");
    await expect
      .poll(() => (host.store.get("yui.yui.relations") as { values: Record<string, number> }).values.user)
      .toBe(12);
    await expect.poll(() => row.locator(".band").textContent()).toBe("close");
    expect(await row.textContent()).toContain(USER_REASON);
    await settings.screenshot({ path: join(SHOTS, "settings-relations.png"), fullPage: true });
  });

  it("two characters address each other through the UI", async () => {
    pointAt("yui", "YUI", backend.url); // a new character starts on the backend of the one selected
    const settings = await open("settings");
    await settings.getByTestId("new-name").fill("Mika");
    await settings.getByTestId("create").click();
    await settings.getByTestId("open-mika").click();
    await expect.poll(() => host.store.get("yui.presets.open")).toEqual(["mika"]);
    const main = await open("main");
    await expect.poll(() => main.getByTestId("panel-mika").count()).toBe(1);
    const start = backend.requests.length;
    backend.enqueue(
      {
        body: chatStream({
          text: ["Hi Mika! Say hello to our guest."],
          calls: [{ id: "a1", name: "address_character", arguments: JSON.stringify({ to: "Mika" }) }],
        }),
      },
      { body: chatStream({ text: [] }) },
      { body: chatStream({ text: ["Hello, nice to meet you!"] }) },
    );
    await send(main, "yui", "Introduce me to Mika");
    const mika = main.getByTestId("panel-mika");
    await expect
      .poll(() => mika.locator(".msg.incoming").last().textContent(), { timeout: 20_000 })
      .toContain("Hi Mika! Say hello to our guest.");
    await expect
      .poll(() => lastAssistant(main, "mika").textContent(), { timeout: 20_000 })
      .toBe("Hello, nice to meet you!");
    const mikaReq = backend.requests[start + 2]!;
    const enumOf = (r: RecordedRequest) =>
      (
        body(r).tools as unknown as {
          function: { name: string; parameters: { properties: { to?: { enum?: string[] } } } };
        }[]
      ).find((t) => t.function.name === "address_character")!.function.parameters.properties.to?.enum;
    expect(enumOf(backend.requests[start]!)).toEqual(["Mika"]);
    expect(enumOf(mikaReq)).toEqual(["YUI"]);
    const sys = body(mikaReq)
      .messages.filter((m) => m.role === "system")
      .map((m) => String(m.content))
      .join("\n");
    expect(sys).toContain("addressed by: YUI (turn 1 of at most 4 in this exchange)");
    expect(body(mikaReq).messages.at(-1)).toEqual({
      role: "user",
      content: "YUI: Hi Mika! Say hello to our guest.",
    });
    await main.screenshot({ path: join(SHOTS, "main-two-characters.png") });
    await settings.screenshot({ path: join(SHOTS, "settings-two-characters.png"), fullPage: true });
    await settings.close();
    await main.close();
  });

  it("renaming a character in settings renames its panel and what the tools offer", async () => {
    pointAt("yui", "YUI", backend.url);
    pointAt("mika", "Mika", backend.url);
    openPet(host.store, "mika");
    const settings = await open("settings");
    const main = await open("main");
    await settings.getByTestId("rename-mika").fill("Mikan");
    await settings.getByTestId("rename-mika").press("Tab");
    await expect.poll(() => main.getByTestId("panel-mika").locator("h2").textContent()).toBe("Mikan");
    const start = backend.requests.length;
    backend.enqueue({ body: chatStream({ text: ["Noted."] }) });
    await send(main, "yui", "Mika has a new name");
    await expect.poll(() => backend.requests.length, { timeout: 20_000 }).toBe(start + 1);
    const tools = body(backend.requests[start]!).tools as unknown as {
      function: { name: string; parameters: { properties: { to?: { enum?: string[] } } } };
    }[];
    expect(
      tools.find((t) => t.function.name === "address_character")!.function.parameters.properties.to?.enum,
    ).toEqual(["Mikan"]);
  });

  it("a model chosen in settings is stored for its preset and served as its avatar; a broken file is refused", async () => {
    const settings = await open("settings");
    const choose = async (file: string) => {
      const chooser = settings.waitForEvent("filechooser");
      await settings.getByTestId("avatar-pick").first().click();
      await (await chooser).setFiles(file);
    };
    const broken = join(dataDir, "broken.vrm");
    writeFileSync(broken, "not a model, just text");
    await choose(broken);
    await expect
      .poll(() => settings.getByTestId("avatar-status").first().textContent())
      .toContain(MODEL_FILE_ERRORS.notGlb);
    // A VRM 1.0 model of our own (tools/vrm-gen), as a user's file would be.
    const mine = join(dataDir, "my-model.vrm");
    writeFileSync(mine, await writeVrm(buildCharacter(), { name: "Mine" }));
    await choose(mine);
    await expect
      .poll(() => settings.getByTestId("avatar-status").first().textContent())
      .toContain("Your model: my-model.vrm");
    const owner = listPresets(host.store).find((p) => p.avatar.endsWith(".vrm"))!;
    expect(owner.avatar).toBe(join(dataDir, "avatars", `${owner.id}.vrm`));
    const served = await hostFetch(host, `/avatar/${owner.id}.vrm`);
    expect(
      Buffer.from(await served.arrayBuffer())
        .subarray(0, 4)
        .toString(),
    ).toBe("glTF");
  });

  it("a push preset talks through the host's relay, which adds the token", async () => {
    const token = "push-e2e-token";
    const push = await startPushBackend({
      token,
      onTurn: (t) => {
        t.segment("Pushed ", [{ at: 0, emotion_id: "happy" }]);
        t.segment("hello.");
        t.end();
      },
    });
    savePreset(host.store, {
      id: "yui",
      name: "YUI",
      avatar: "",
      voice: "",
      persona: "",
      backend: { transport: "push", push_url: push.url },
    });
    host.store.set("yui.yui.api_key", token, "test");
    const main = await open("main");
    await send(main, "yui", "Over push");
    await expect
      .poll(() => lastAssistant(main, "yui").textContent(), { timeout: 20_000 })
      .toBe("Pushed hello.");
    expect(push.upgrades[0]!.authorization).toBe(`Bearer ${token}`);
    // hello.tools: the browser build's two tools; generate_express rides in segments, never declared on push.
    const names = (push.hellos[0]!.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(["rate_relation", "address_character"]);
    await main.close();
    await push.close();
  });

  it("a mod's signal wakes main's character once, however many main windows are open", async () => {
    pointAt("yui", "YUI", backend.url);
    const port = await freePort();
    host.store.set("yui.agent_notify", { enabled: true, port }, "test");
    const [a, b] = [await open("main"), await open("main")];
    const start = backend.requests.length;
    backend.enqueue({ body: chatStream({ text: ["On my way!"] }) });
    const doorbell = {
      delivery: "urgent",
      source: "factorio",
      event_type: "game.wake",
      pending_from_seq: 812,
      pending_to_seq: 815,
      reset: false,
      note: "yui, come here",
    };
    // The ingress binds when the switch turns on: the post is retried until it listens.
    await expect
      .poll(() =>
        fetch(`http://127.0.0.1:${port}/signals`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(doorbell),
        }).then(
          (r) => r.status,
          () => 0,
        ),
      )
      .toBe(202);
    // Both windows end up showing the reply (the history is shared through the store); one ran the turn.
    const shows = (p: Page) =>
      p.getByTestId("panel-yui").locator(".msg.assistant", { hasText: "On my way!" });
    await expect.poll(async () => (await shows(a).count()) + (await shows(b).count())).toBe(2);
    expect(await a.getByTestId("panel-yui").locator(".msg.incoming").last().textContent()).toContain(
      "factorio · yui, come here",
    );
    expect(backend.requests.length).toBe(start + 1);
    const req = body(backend.requests[start]!);
    const sys = req.messages
      .filter((m) => m.role === "system")
      .map((m) => String(m.content))
      .join("\n");
    expect(sys).toContain("signal: factorio game.wake (urgent)");
    const sent = JSON.parse(String(req.messages.at(-1)!.content));
    expect(sent).toMatchObject({ source: "factorio", note: "yui, come here", body: doorbell });
    await a.screenshot({ path: join(SHOTS, "main-signal.png") });
  });

  it("the phone window declares generate_express alone", async () => {
    pointAt("yui", "YUI", backend.url);
    const phone = await open("phone");
    const start = backend.requests.length;
    backend.enqueue({ body: chatStream({ text: ["From your pocket."] }) });
    await send(phone, "yui", "Hi from the phone");
    await expect.poll(() => lastAssistant(phone, "yui").textContent()).toBe("From your pocket.");
    expect(toolNames(backend.requests[start]!)).toEqual(["generate_express"]);
    await phone.screenshot({ path: join(SHOTS, "phone.png") });
    await phone.close();
  });

  it("a Responses reply cut off inside a call keeps its text, runs nothing and says why", async () => {
    savePreset(host.store, {
      id: "yui",
      name: "YUI",
      avatar: "",
      voice: "",
      persona: "",
      backend: { transport: "responses", base_url: backend.url },
    });
    const main = await open("main");
    const start = backend.requests.length;
    backend.enqueue({
      body: sse(
        { type: "response.created", response: { id: "r_cut", status: "in_progress" } },
        { type: "response.output_text.delta", delta: "Let me rate that." },
        {
          type: "response.output_item.added",
          output_index: 1,
          item: { id: "fc_1", type: "function_call", call_id: "c1", name: "rate_relation", arguments: "" },
        },
        { type: "response.function_call_arguments.delta", item_id: "fc_1", output_index: 1, delta: '{"tow' },
        {
          type: "response.incomplete",
          response: {
            id: "r_cut",
            status: "incomplete",
            incomplete_details: { reason: "max_output_tokens" },
          },
        },
      ),
    });
    await send(main, "yui", "Be brief");
    const reply = lastAssistant(main, "yui");
    await expect.poll(() => reply.getByTestId("cut-off").textContent()).toBe(CUT_OFF.max_output_tokens);
    expect(await reply.locator(".text").textContent()).toBe("Let me rate that.");
    expect(await reply.getByTestId("tool-call").count()).toBe(0);
    expect(backend.requests.length - start).toBe(1);
    await main.close();
  });
});
