/**
 * The bridge client a page and a Node process share (src/io/bridge/client.ts), over Node's WebSocket
 * (host/chat/host-bridge.ts) against a scripted bridge on loopback: answers are checked by their command's answer
 * schema, a stopped caller cancels its command, a host that goes away fails what is in flight, and a page's
 * client connects again.
 */
import type { AddressInfo } from "node:net";
import { freePort } from "@yui/mod-kit/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type WebSocket, WebSocketServer } from "ws";
import { connectHostBridge, nodeBridgeSocket } from "../host/chat/host-bridge.ts";
import { type BridgeState, createBridgeClient } from "../src/io/bridge/client.ts";

type Invoke = { type: "invoke"; id: number; command: string; args: unknown };

/** A bridge on loopback that says hello and hands each frame to `onFrame`. */
async function scriptedBridge(onFrame: (f: Record<string, unknown>, ws: WebSocket) => void) {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((r) => wss.once("listening", () => r()));
  const sockets = new Set<WebSocket>();
  wss.on("connection", (ws) => {
    sockets.add(ws);
    ws.send(JSON.stringify({ type: "hello", snapshot: { conn: sockets.size } }));
    ws.on("message", (d) => onFrame(JSON.parse(String(d)), ws));
  });
  const port = (wss.address() as AddressInfo).port;
  return {
    url: `ws://127.0.0.1:${port}/bridge`,
    port,
    /** Drops every connection, as a host that quits. */
    drop: () => {
      for (const ws of sockets) ws.terminate();
    },
    close: () => new Promise<void>((r) => wss.close(() => r())),
  };
}

const answer = (ws: WebSocket, id: number, value: unknown) =>
  ws.send(JSON.stringify({ type: "result", id, ok: true, value }));

const closers: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c();
});

describe("the bridge client", () => {
  it("resolves an answer that fits its command's schema and rejects one that does not, naming the command", async () => {
    const bridge = await scriptedBridge((f, ws) => {
      const i = f as Invoke;
      if (i.command === "voice_key_status") answer(ws, i.id, { stored: true });
      if (i.command === "browser_guide") answer(ws, i.id, { text: 1 });
    });
    closers.push(bridge.close);
    const client = createBridgeClient({ url: bridge.url, socket: nodeBridgeSocket() });
    closers.push(client.close);
    await client.ready;
    expect(await client.invoke("voice_key_status", { presetId: "yui" })).toEqual({ stored: true });
    await expect(client.invoke("browser_guide", {})).rejects.toThrow(
      "browser_guide: unexpected answer from the host",
    );
  });

  it("a caller that stops waiting cancels its command on the host", async () => {
    const frames: Record<string, unknown>[] = [];
    const bridge = await scriptedBridge((f) => frames.push(f));
    closers.push(bridge.close);
    const client = createBridgeClient({ url: bridge.url, socket: nodeBridgeSocket() });
    closers.push(client.close);
    await client.ready;
    const stop = new AbortController();
    const held = client.invoke("body_attach", { presetId: "yui" }, { signal: stop.signal });
    held.catch(() => {});
    stop.abort();
    await expect.poll(() => frames.map((f) => f.type)).toEqual(["invoke", "cancel"]);
    expect(frames[1]).toEqual({ type: "cancel", id: (frames[0] as Invoke).id });
  });

  it("a host that goes away fails what is in flight; a page's client connects again and hears hello again", async () => {
    const bridge = await scriptedBridge(() => {});
    closers.push(bridge.close);
    const client = createBridgeClient({ url: bridge.url, socket: nodeBridgeSocket(), reconnect: true });
    closers.push(client.close);
    const hellos: unknown[] = [];
    const states: BridgeState[] = [];
    client.onHello((s) => hellos.push(s));
    client.onState((s) => states.push(s));
    await client.ready;
    const pending = client.invoke("body_poke", {});
    bridge.drop();
    await expect(pending).rejects.toThrow("the YUI host is not reachable");
    await expect(client.invoke("body_poke", {})).rejects.toThrow("the YUI host is not reachable");
    await expect.poll(() => hellos).toEqual([{ conn: 1 }, { conn: 2 }]);
    expect(states).toEqual(["open", "closed", "connecting", "open"]);
  });

  it("in Node: a host that does not answer rejects the connection, saying where it was looked for", async () => {
    const port = await freePort();
    await expect(connectHostBridge(`http://127.0.0.1:${port}/`)).rejects.toThrow(
      new RegExp(`^cannot reach the YUI host at http://127.0.0.1:${port}/: `),
    );
  });

  it("in Node: the connection carries the headers it is given", async () => {
    const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
    await new Promise<void>((r) => wss.once("listening", () => r()));
    closers.push(() => new Promise<void>((r) => wss.close(() => r())));
    const seen: (string | undefined)[] = [];
    wss.on("connection", (ws, req) => {
      seen.push(req.headers["x-yui-test"] as string | undefined);
      ws.send(JSON.stringify({ type: "hello", snapshot: {} }));
    });
    const { port } = wss.address() as AddressInfo;
    const client = await connectHostBridge(`http://127.0.0.1:${port}/`, { headers: { "x-yui-test": "yes" } });
    closers.push(client.close);
    expect(seen).toEqual(["yes"]);
  });
});
