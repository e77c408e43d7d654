import { mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GUARD_REFUSALS } from "@yui/mod-kit";
import { expectLoopbackOnly, freePort, rawRequest } from "@yui/mod-kit/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openStore } from "../store/store.ts";
import {
  AGENT_NOTIFY_KEY,
  followAgentNotify,
  INGRESS_ERRORS,
  type IngressSignal,
  type RunningIngress,
  startIngress,
} from "./ingress.ts";
import { MAX_BODY_BYTES } from "./messages.ts";
import { queueHangingGesture, scriptedExecutor } from "./testing.ts";

// The factorio doorbell, exactly as docs/mods/factorio.md posts it.
const WAKE = {
  delivery: "urgent",
  source: "factorio",
  event_type: "game.wake",
  pending_from_seq: 812,
  pending_to_seq: 815,
  reset: false,
  note: "yui, come here",
};

const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

describe("POST /signals", () => {
  let ingress: RunningIngress;
  const got: IngressSignal[] = [];
  beforeAll(async () => {
    ingress = await startIngress({
      port: 0,
      onSignal: (s) => {
        got.push(s);
      },
      executor: () => null,
      limits: { urgentGapMs: 60_000, normalGapMs: 60_000, maxHeld: 1 },
    });
  });
  afterAll(() => ingress.close());

  it("accepts the factorio wake group and hands it to the app as posted", async () => {
    const r = await post(`${ingress.url}/signals`, WAKE);
    expect(r.status).toBe(202);
    expect(await r.json()).toEqual({ accepted: true, held: false });
    await vi.waitFor(() => expect(got).toHaveLength(1));
    const s = got[0]!;
    expect(s).toMatchObject({
      source: "factorio",
      event_type: "game.wake",
      delivery: "urgent",
      note: "yui, come here",
      count: 1,
      body: WAKE,
    });
    expect(Number.isNaN(Date.parse(s.received_at))).toBe(false);
  });

  it("holds a second signal of the same pair inside the gap, and refuses new pairs once the held table is full", async () => {
    const second = await post(`${ingress.url}/signals`, { ...WAKE, pending_to_seq: 816 });
    expect(await second.json()).toEqual({ accepted: true, held: true });
    // A new pair goes straight through (nothing throttles it yet) ...
    const other = await post(`${ingress.url}/signals`, { source: "cron", event_type: "tick" });
    expect(await other.json()).toEqual({ accepted: true, held: false });
    // ... but a second one of it would need a held slot, and the one slot is taken.
    const full = await post(`${ingress.url}/signals`, { source: "cron", event_type: "tick" });
    expect(full.status).toBe(429);
    expect(await full.json()).toEqual({ error: INGRESS_ERRORS.tooManyHeld });
    await vi.waitFor(() => expect(got.map((s) => s.source)).toEqual(["factorio", "cron"]));
    expect(got[1]!.delivery).toBe("normal");
  });

  const BAD: Array<[string, unknown, string]> = [
    ["no source", { event_type: "x" }, INGRESS_ERRORS.missingField("source")],
    ["no event_type", { source: "factorio" }, INGRESS_ERRORS.missingField("event_type")],
    [
      "a source with spaces",
      { source: "Fac torio", event_type: "x" },
      INGRESS_ERRORS.invalidField(
        "source",
        "1 to 64 characters of a-z 0-9 _ . -, starting with a letter or digit",
      ),
    ],
    [
      "a numeric event_type",
      { source: "a", event_type: 5 },
      INGRESS_ERRORS.invalidField(
        "event_type",
        "1 to 64 characters of a-z 0-9 _ . -, starting with a letter or digit",
      ),
    ],
    [
      "an unknown delivery",
      { source: "a", event_type: "b", delivery: "whenever" },
      INGRESS_ERRORS.invalidField("delivery", "one of urgent, normal"),
    ],
    [
      "a note too long",
      { source: "a", event_type: "b", note: "x".repeat(4001) },
      INGRESS_ERRORS.invalidField("note", "a string of at most 4000 characters"),
    ],
    ["an array", [WAKE], INGRESS_ERRORS.notObject],
    ["broken JSON", "{", INGRESS_ERRORS.notJson],
    ["an empty body", "", INGRESS_ERRORS.missingField("source")],
  ];
  for (const [what, body, error] of BAD) {
    it(`refuses ${what} with a 400 naming the problem`, async () => {
      const r = await post(`${ingress.url}/signals`, body);
      expect(r.status).toBe(400);
      expect(await r.json()).toEqual({ error });
    });
  }

  it("refuses a body that is not JSON-typed (415), too large (413), a GET (405) and an unknown path (404)", async () => {
    const form = await post(`${ingress.url}/signals`, "source=x", { "content-type": "text/plain" });
    expect([form.status, await form.json()]).toEqual([415, { error: INGRESS_ERRORS.contentType }]);
    const big = await post(`${ingress.url}/signals`, { ...WAKE, pad: "x".repeat(MAX_BODY_BYTES) });
    expect([big.status, await big.json()]).toEqual([413, { error: INGRESS_ERRORS.tooLarge(MAX_BODY_BYTES) }]);
    const get = await fetch(`${ingress.url}/signals`);
    expect([get.status, await get.json()]).toEqual([405, { error: INGRESS_ERRORS.method }]);
    const nowhere = await post(`${ingress.url}/elsewhere`, WAKE);
    expect([nowhere.status, await nowhere.json()]).toEqual([404, { error: INGRESS_ERRORS.notFound }]);
  });

  it("answers 413 to an oversized chunked body without waiting for the rest of it", async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${ingress.url}/signals`, {
        method: "POST",
        headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      });
      req.on("response", (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          body += c;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on("error", reject);
      // Twice the limit is written, but the request is never ended: the answer must not wait for it.
      req.write(`{"source":"factorio","pad":"${"x".repeat(MAX_BODY_BYTES)}`);
      req.write("x".repeat(MAX_BODY_BYTES));
    });
    expect(answer).toEqual({
      status: 413,
      body: JSON.stringify({ error: INGRESS_ERRORS.tooLarge(MAX_BODY_BYTES) }),
    });
  });

  it("listens on 127.0.0.1 only (the bound address, so a 0.0.0.0 bind fails on any machine)", async () => {
    await expectLoopbackOnly(ingress.port);
  });

  it("refuses a non-loopback Host with 421 and a non-loopback Origin with 403 on every route", async () => {
    const before = got.length;
    for (const path of ["/signals", "/avatar/body", "/avatar/stand", "/nowhere"]) {
      const host = await rawRequest(`${ingress.url}${path}`, {
        method: "POST",
        headers: { host: "evil.example", "content-type": "application/json" },
        body: JSON.stringify({ ...WAKE, source: "guarded" }),
      });
      expect(host.status).toBe(GUARD_REFUSALS.host.status);
      expect(JSON.parse(host.body).error.message).toBe(GUARD_REFUSALS.host.message);
      const origin = await rawRequest(`${ingress.url}${path}`, {
        method: "POST",
        headers: { origin: "https://evil.example", "content-type": "application/json" },
        body: JSON.stringify({ ...WAKE, source: "guarded" }),
      });
      expect(origin.status).toBe(GUARD_REFUSALS.origin.status);
      expect(JSON.parse(origin.body).error.message).toBe(GUARD_REFUSALS.origin.message);
    }
    const local = await rawRequest(`${ingress.url}/signals`, {
      method: "POST",
      headers: { host: "localhost", origin: "http://localhost:5173", "content-type": "application/json" },
      body: JSON.stringify({ source: "local", event_type: "ok" }),
    });
    expect(local.status).toBe(202);
    await vi.waitFor(() => expect(got.length).toBe(before + 1));
    expect(got.some((s) => s.source === "guarded")).toBe(false);
  });
});

describe("coalescing over HTTP", () => {
  it("merges a burst into one held signal handed on after the gap, keeping reset true and the newest seqs", async () => {
    const got: IngressSignal[] = [];
    const ingress = await startIngress({
      port: 0,
      onSignal: (s) => {
        got.push(s);
      },
      executor: () => null,
      limits: { urgentGapMs: 1_500, normalGapMs: 60_000 },
    });
    try {
      const answers = [];
      answers.push(await (await post(`${ingress.url}/signals`, WAKE)).json());
      answers.push(
        await (await post(`${ingress.url}/signals`, { ...WAKE, reset: true, pending_to_seq: 820 })).json(),
      );
      answers.push(
        await (
          await post(`${ingress.url}/signals`, { ...WAKE, note: "job_failed", pending_to_seq: 830 })
        ).json(),
      );
      expect(answers).toEqual([
        { accepted: true, held: false },
        { accepted: true, held: true },
        { accepted: true, held: true },
      ]);
      await vi.waitFor(() => expect(got).toHaveLength(2), { timeout: 10_000 });
      expect(got[1]).toMatchObject({
        count: 2,
        note: "job_failed",
        body: { ...WAKE, reset: true, note: "job_failed", pending_to_seq: 830 },
      });
    } finally {
      await ingress.close();
    }
  });
});

describe("a failing app handler", () => {
  it("is reported on stderr after the post was answered 202, and the ingress keeps serving", async () => {
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    const ingress = await startIngress({
      port: 0,
      onSignal: async () => {
        throw new Error("bridge closed");
      },
      executor: () => null,
    });
    try {
      expect((await post(`${ingress.url}/signals`, WAKE)).status).toBe(202);
      await vi.waitFor(() => expect(err).toHaveBeenCalledWith("[ingress] onSignal failed: bridge closed"));
      expect((await post(`${ingress.url}/signals`, { source: "next", event_type: "one" })).status).toBe(202);
    } finally {
      err.mockRestore();
      await ingress.close();
    }
  });
});

describe("the avatar routes", () => {
  let ingress: RunningIngress;
  const ex = scriptedExecutor(
    { posture: "standing", monitor: 0, vrm: "yui.vrm", moving: false },
    { windows: [{ app: "Terminal", title: "zsh", rect: { x: 0, y: 0, w: 800, h: 600 } }], peek_edges: [] },
  );
  let present = true;
  beforeAll(async () => {
    ingress = await startIngress({
      port: 0,
      onSignal: () => {},
      executor: () => (present ? ex : null),
      timeouts: { gestureMs: 300, readMs: 300 },
    });
  });
  afterAll(() => ingress.close());
  const gesture = (name: string, body?: unknown) =>
    fetch(`${ingress.url}/avatar/${name}`, {
      method: "POST",
      ...(body === undefined
        ? {}
        : { headers: { "content-type": "application/json" }, body: JSON.stringify(body) }),
    });

  it("answers the body state and the perch targets from the executor", async () => {
    expect(await (await fetch(`${ingress.url}/avatar/body`)).json()).toEqual({ result: "ok", body: ex.body });
    expect(await (await fetch(`${ingress.url}/avatar/perch-targets`)).json()).toEqual({
      result: "ok",
      perch_targets: ex.perch,
    });
  });

  it("forwards every gesture with its arguments and answers the executor's word", async () => {
    ex.calls.length = 0;
    ex.script.push("ok", "blocked", "not_found", "busy", "interrupted", "unsupported");
    const answers = [];
    answers.push(await (await gesture("sit_on_window", { app: "Terminal" })).json());
    answers.push(await (await gesture("peek", { side: "left" })).json());
    answers.push(await (await gesture("move_to", { spot: "top_right", monitor: 1 })).json());
    answers.push(await (await gesture("move_to", { spot: "center", monitor: null })).json());
    answers.push(await (await gesture("stand")).json());
    answers.push(await (await gesture("go_to_bed", {})).json());
    expect(answers).toEqual(
      ["ok", "blocked", "not_found", "busy", "interrupted", "unsupported"].map((result) => ({ result })),
    );
    expect(ex.calls.map((c) => c.args)).toEqual([
      { action: "sit_on_window", app: "Terminal" },
      { action: "peek", side: "left" },
      { action: "move_to", spot: "top_right", monitor: 1 },
      { action: "move_to", spot: "center" },
      { action: "stand" },
      { action: "go_to_bed" },
    ]);
  });

  const BAD: Array<[string, unknown, string]> = [
    ["sit_on_window", {}, INGRESS_ERRORS.missingField("app")],
    ["sit_on_window", { app: "" }, INGRESS_ERRORS.missingField("app")],
    ["sit_on_window", { app: 3 }, INGRESS_ERRORS.invalidField("app", "an app name of 1 to 256 characters")],
    ["peek", { side: "up" }, INGRESS_ERRORS.invalidField("side", "one of left, right")],
    ["move_to", { monitor: 0 }, INGRESS_ERRORS.missingField("spot")],
    [
      "move_to",
      { spot: "middle" },
      INGRESS_ERRORS.invalidField("spot", "one of center, top_left, top_right, bottom_left, bottom_right"),
    ],
    [
      "move_to",
      { spot: "center", monitor: -1 },
      INGRESS_ERRORS.invalidField("monitor", "an integer >= 0, or null"),
    ],
    [
      "move_to",
      { spot: "center", monitor: 1.5 },
      INGRESS_ERRORS.invalidField("monitor", "an integer >= 0, or null"),
    ],
    ["stand", "now", INGRESS_ERRORS.notObject],
  ];
  for (const [name, body, error] of BAD) {
    it(`refuses ${name} ${JSON.stringify(body)} with a 400 naming the field`, async () => {
      const calls = ex.calls.length;
      const r = await gesture(name, body);
      expect([r.status, await r.json()]).toEqual([400, { error }]);
      expect(ex.calls.length).toBe(calls);
    });
  }

  it("answers unsupported for reads and gestures while no executor is reachable", async () => {
    present = false;
    try {
      expect(await (await fetch(`${ingress.url}/avatar/body`)).json()).toEqual({ result: "unsupported" });
      expect(await (await fetch(`${ingress.url}/avatar/perch-targets`)).json()).toEqual({
        result: "unsupported",
      });
      expect(await (await gesture("stand")).json()).toEqual({ result: "unsupported" });
    } finally {
      present = true;
    }
  });

  it("aborts a gesture past its deadline and answers timeout", async () => {
    const hang = queueHangingGesture(ex, "interrupted");
    expect(await (await gesture("go_to_bed")).json()).toEqual({ result: "timeout" });
    expect(hang.signal()?.aborted).toBe(true);
  });

  it("aborts the executor's work when the caller hangs up", async () => {
    const hang = queueHangingGesture(ex, "ok");
    const ingress2 = await startIngress({
      port: 0,
      onSignal: () => {},
      executor: () => ex,
      timeouts: { gestureMs: 60_000 },
    });
    try {
      const ac = new AbortController();
      const pending = fetch(`${ingress2.url}/avatar/stand`, { method: "POST", signal: ac.signal }).catch(
        () => "hung up",
      );
      await hang.started;
      ac.abort();
      expect(await pending).toBe("hung up");
      await vi.waitFor(() => expect(hang.signal()?.aborted).toBe(true));
    } finally {
      await ingress2.close();
    }
  });

  it("answers 500 naming the failure when the executor throws or answers a word outside the table", async () => {
    ex.script.push(async () => {
      throw new Error("stage not loaded");
    });
    const thrown = await gesture("stand");
    expect([thrown.status, await thrown.json()]).toEqual([
      500,
      { error: INGRESS_ERRORS.executorFailed("stage not loaded") },
    ]);
    ex.script.push(async () => "maybe" as "ok");
    const odd = await gesture("stand");
    expect([odd.status, await odd.json()]).toEqual([
      500,
      { error: INGRESS_ERRORS.executorFailed('answered "maybe", not a result word') },
    ]);
  });

  it("answers 405 for a wrong method and 404 for an unknown avatar path", async () => {
    const get = await fetch(`${ingress.url}/avatar/stand`);
    expect([get.status, await get.json()]).toEqual([405, { error: INGRESS_ERRORS.method }]);
    const postBody = await fetch(`${ingress.url}/avatar/body`, { method: "POST" });
    expect([postBody.status, await postBody.json()]).toEqual([405, { error: INGRESS_ERRORS.method }]);
    const dance = await gesture("dance", {});
    expect([dance.status, await dance.json()]).toEqual([404, { error: INGRESS_ERRORS.notFound }]);
  });
});

describe("followAgentNotify", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "yui-ingress-"));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("binds while yui.agent_notify is on, rebinds on a new port, unbinds when it goes off", async () => {
    const store = openStore(dir);
    const lines: string[] = [];
    const binding = followAgentNotify(store, {
      onSignal: () => {},
      executor: () => null,
      log: (l) => lines.push(l),
    });
    try {
      await binding.settled();
      expect(store.get(AGENT_NOTIFY_KEY)).toEqual({ enabled: false });
      expect(binding.current()).toBeNull();

      const p1 = await freePort();
      store.set(AGENT_NOTIFY_KEY, { enabled: true, port: p1 }, "test");
      await binding.settled();
      expect(binding.current()?.url).toBe(`http://127.0.0.1:${p1}`);
      expect((await post(`http://127.0.0.1:${p1}/signals`, WAKE)).status).toBe(202);

      const p2 = await freePort();
      store.set(AGENT_NOTIFY_KEY, { enabled: true, port: p2 }, "test");
      await binding.settled();
      expect(binding.current()?.url).toBe(`http://127.0.0.1:${p2}`);
      await expect(fetch(`http://127.0.0.1:${p1}/signals`)).rejects.toThrow();

      store.set(AGENT_NOTIFY_KEY, { enabled: false, port: p2 }, "test");
      await binding.settled();
      expect(binding.current()).toBeNull();
      await expect(fetch(`http://127.0.0.1:${p2}/signals`)).rejects.toThrow();
      expect(lines).toEqual([
        `[ingress] listening on http://127.0.0.1:${p1} (agent-notify on)`,
        `[ingress] listening on http://127.0.0.1:${p2} (agent-notify on)`,
        "[ingress] closed (agent-notify off)",
      ]);
    } finally {
      await binding.close();
      store.close();
    }
  });

  it("stays off with a clear line when the port is taken, and binds once the port changes", async () => {
    const store = openStore(dir);
    const blocker = createServer();
    const taken = await new Promise<number>((r) =>
      blocker.listen(0, "127.0.0.1", () => r((blocker.address() as { port: number }).port)),
    );
    const lines: string[] = [];
    store.set(AGENT_NOTIFY_KEY, { enabled: true, port: taken }, "test");
    const binding = followAgentNotify(store, {
      onSignal: () => {},
      executor: () => null,
      log: (l) => lines.push(l),
    });
    try {
      await binding.settled();
      expect(binding.current()).toBeNull();
      expect(lines).toEqual([
        `[ingress] port ${taken} on 127.0.0.1 is taken: agent-notify stays off until its port or the switch changes`,
      ]);
      const free = await freePort();
      store.set(AGENT_NOTIFY_KEY, { enabled: true, port: free }, "test");
      await binding.settled();
      expect(binding.current()?.port).toBe(free);
    } finally {
      await binding.close();
      expect(binding.current()).toBeNull();
      store.set(AGENT_NOTIFY_KEY, { enabled: false }, "test");
      store.close();
      await new Promise((r) => blocker.close(r));
    }
  });

  it("refuses a switch value outside its schema", () => {
    const store = openStore(dir);
    try {
      expect(() => store.set(AGENT_NOTIFY_KEY, { enabled: true, port: 80 }, "test")).toThrow(
        /invalid value for yui\.agent_notify: port/,
      );
      expect(() => store.set(AGENT_NOTIFY_KEY, { enabled: "yes" }, "test")).toThrow(
        /invalid value for yui\.agent_notify: enabled/,
      );
    } finally {
      store.close();
    }
  });
});
