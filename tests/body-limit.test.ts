/**
 * A gesture past its limit stops where she is and answers `timeout`, whoever called it (issue 32, docs/body.md
 * "Gestures and result words"): the limit is the body's, so Chat Completions, Responses, push, the avatar mod
 * through the ingress and `yui chat --host` all hear the body's word, and her walk ends with the answer. The host
 * runs the real desktop body (host/desktop/testing.ts) with her walk slowed to 20 px/s and the limit at 1.5 s,
 * so a move to the far corner is still on its way when the limit comes.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, waitFor } from "@yui/mod-kit/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectHostBridge, type HostBridge } from "../host/chat/host-bridge.ts";
import { type BodyHost, startBodyHost } from "../host/desktop/testing.ts";
import { writeHostSecret } from "../host/launch-secret.ts";
import { nodeConnect } from "../host/push-socket.ts";
import { secretHeaders } from "../host/server/testing.ts";
import { Addressing } from "../src/app/addressing/addressing.ts";
import { relationsFromStore } from "../src/app/tools/relation.ts";
import { createWindowTools } from "../src/app/tools/window-tools.ts";
import { executorOverBridge } from "../src/io/bridge/body-executor.ts";
import { createPushClient } from "../src/io/chat/push/client.ts";
import { createChatEngine } from "../src/io/chat/stream/engine.ts";
import type { EngineEvent, Transport } from "../src/io/chat/stream/types.ts";
import { AGENT_NOTIFY_KEY } from "../src/protocol/store-keys.ts";
import { startPushBackend } from "../tools/push-backend/server.ts";
import {
  chatStream,
  responsesStream,
  type ScriptedBackend,
  startScriptedBackend,
} from "../tools/scripted-backend/server.ts";
import { startAvatarMod } from "../tools/testing/avatar-mod.ts";
import { scriptedInvoke } from "../tools/testing/invoke.ts";
import { runYui } from "../tools/testing/yui-process.ts";

/** 20 px/s: the far corner is half a minute away; the limit is 1.5 s. */
const TIMINGS = { walkPxPerS: 20, climbPxPerS: 20, gestureMs: 1_500 };

let body: BodyHost;
let bridge: HostBridge;
let backend: ScriptedBackend;

interface BodyState {
  window: { x: number; y: number };
  posture: string;
  moving: boolean;
}
const state = async () => (await bridge.invoke("body_read", { at: "body" })) as BodyState;

/** Her window's x at the spot move_to sends her to: the corner of the monitor farther from her. */
async function farCorner(): Promise<{ spot: "bottom_left" | "bottom_right"; from: number; to: number }> {
  const from = (await state()).window.x;
  return from > 780 ? { spot: "bottom_left", from, to: 0 } : { spot: "bottom_right", from, to: 1920 - 360 };
}

/** She stopped on her way, where the host placed her window, and the gesture is over (the next is not busy). */
async function expectStoppedOnHerWay(way: { from: number; to: number }): Promise<void> {
  const s = await state();
  expect(s).toMatchObject({ posture: "standing", moving: false });
  const [lo, hi] = way.from < way.to ? [way.from, way.to] : [way.to, way.from];
  expect(s.window.x).toBeGreaterThan(lo);
  expect(s.window.x).toBeLessThan(hi);
  expect(body.placed()).toEqual({ x: s.window.x, y: s.window.y });
  expect(await bridge.invoke("body_action", { action: "stand" })).toBe("ok");
}

/** Main's window in this Node process over the host's bridge, as `yui chat --host` wires it. */
function mainTools() {
  const win = {
    tools: createWindowTools({
      kv: body.host.store,
      kind: "main",
      presetId: "yui",
      addressing: new Addressing({ self: { id: "yui", name: "YUI" } }),
      invoke: scriptedInvoke().invoke,
      avatarExecutor: () => executorOverBridge(bridge.invoke),
      relations: relationsFromStore(body.host.store),
    }),
  };
  return win.tools();
}

beforeAll(async () => {
  body = await startBodyHost(TIMINGS);
  bridge = await connectHostBridge(body.host.url, { headers: secretHeaders(body.host) });
  backend = await startScriptedBackend();
});
afterAll(async () => {
  bridge?.close();
  await backend?.close();
  await body?.close();
});

describe("body_action past the body's limit answers timeout and she stops where she is", () => {
  it.each(["chat", "responses"] as const)(
    "%s: the tool's result is timeout",
    async (transport: Transport) => {
      const way = await farCorner();
      const args = JSON.stringify({ action: "move_to", spot: way.spot });
      backend.enqueue(
        transport === "chat"
          ? { body: chatStream({ calls: [{ id: "c1", name: "body_action", arguments: args }] }) }
          : {
              body: responsesStream({
                id: "r1",
                calls: [{ call_id: "c1", name: "body_action", arguments: args }],
              }),
            },
        transport === "chat"
          ? { body: chatStream({ text: ["I stopped."] }) }
          : { body: responsesStream({ id: "r2", text: ["I stopped."] }) },
      );
      const engine = createChatEngine({ transport, baseUrl: backend.url });
      const events: EngineEvent[] = [];
      const end = await engine.runTurn({
        text: "go to the far corner",
        tools: mainTools(),
        presetId: "yui",
        onEvent: (e) => events.push(e),
      });
      expect(events.filter((e) => e.type === "tool_call").map((e) => [e.name, e.result])).toEqual([
        ["body_action", "timeout"],
      ]);
      expect(end).toMatchObject({ outcome: "spoken", round_trips: 1 });
      await expectStoppedOnHerWay(way);
    },
  );

  it("push: the tool_result is timeout, well inside the declared wait", async () => {
    const way = await farCorner();
    let answer: unknown;
    const push = await startPushBackend({
      onTurn: async (t) => {
        answer = (await t.call("body_action", { action: "move_to", spot: way.spot })).result;
        t.end("silent");
      },
    });
    const client = createPushClient({
      url: push.url,
      connect: nodeConnect,
      hello: () => ({ preset: { id: "yui", name: "YUI" }, window: "main", tools: mainTools() }),
    });
    try {
      client.start();
      await client.runTurn({ text: "go", context: "" });
      expect(answer).toBe("timeout");
      await expectStoppedOnHerWay(way);
    } finally {
      client.close();
      await push.close();
    }
  });

  it("the avatar mod through the ingress: the tool error carries timeout", async () => {
    const avatar = await startAvatarMod(body.host.store, await freePort());
    try {
      const call = avatar.call;
      await waitFor("the ingress bound", async () => !(await call("get_body_state")).isError);
      const way = await farCorner();
      const r = await call("move_to", { spot: way.spot });
      expect([r.isError, r.content.map((c) => (c.type === "text" ? c.text : "")).join("")]).toEqual([
        true,
        "timeout",
      ]);
      await expectStoppedOnHerWay(way);
    } finally {
      await avatar.close();
      body.host.store.set(AGENT_NOTIFY_KEY, { enabled: false }, "test");
    }
  });

  it("`yui chat --host`: the tool_call line's result is timeout", async () => {
    const way = await farCorner();
    const args = JSON.stringify({ action: "move_to", spot: way.spot });
    backend.enqueue(
      { body: chatStream({ calls: [{ id: "c1", name: "body_action", arguments: args }] }) },
      { body: chatStream({ text: ["I stopped."] }) },
    );
    const dataDir = mkdtempSync(join(tmpdir(), "yui-body-limit-"));
    // The host's secret where `yui chat` looks for it: its own data directory (a command of the user's).
    writeHostSecret(dataDir, body.host.port, body.host.secret);
    try {
      const r = await runYui(
        [
          "chat",
          "--host",
          body.host.url,
          "--base-url",
          backend.url,
          "--transport",
          "chat",
          "--message",
          "go",
        ],
        dataDir,
      );
      expect(r.stderr).toBe("");
      expect(r.lines.filter((l) => l.type === "tool_call").map((l) => [l.name, l.result])).toEqual([
        ["body_action", "timeout"],
      ]);
      await expectStoppedOnHerWay(way);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
