import { describe, expect, it } from "vitest";
import {
  type AddressedTurn,
  Addressing,
  addressedChainMax,
  addressedTurnContext,
  CHARACTER_ADDRESSED_EVENT,
  type CharacterAddressed,
  DEFAULT_ADDRESSED_CHAIN_MAX,
  isSilent,
} from "./addressing.ts";

const SPEC = { event: "yui://character-addressed", silent: "[SILENT]" };

const MIKA = { id: "mika", name: "Mika" };
const AOI = { id: "aoi", name: "Aoi" };

function pair(chainMax = 3) {
  let n = 0;
  const ids = () => `x${++n}`;
  return {
    mika: new Addressing({ self: MIKA, chainMax: () => chainMax, newExchangeId: ids }),
    aoi: new Addressing({ self: AOI, chainMax: () => chainMax, newExchangeId: ids }),
  };
}

const spoke = (text: string) => ({ status: "ok" as const, text, spoken: true });

describe("addressing", () => {
  it("names the spec's event and silence mark", () => {
    expect(CHARACTER_ADDRESSED_EVENT).toBe(SPEC.event);
    expect(isSilent(SPEC.silent)).toBe(true);
    expect(isSilent(`  ${SPEC.silent.toLowerCase()}\n`)).toBe(true);
    expect(isSilent(`${SPEC.silent} but`)).toBe(false);
    expect(DEFAULT_ADDRESSED_CHAIN_MAX).toBe(4);
  });

  it("emits the event only after the turn ended ok, having spoken, and its playback finished", () => {
    const { mika } = pair();
    mika.beginTurn("t1", { kind: "user" });
    mika.record("t1", AOI);
    expect(mika.endTurn("t1", spoke("Aoi, what do you think?"))).toBeNull();
    const ev = mika.playbackFinished("t1");
    expect(ev).toEqual({
      exchange: "x1",
      chain: 1,
      from: MIKA,
      to: AOI,
      text: "Aoi, what do you think?",
      turnId: "t1",
    });
    // Once: a second playback notice emits nothing.
    expect(mika.playbackFinished("t1")).toBeNull();
  });

  it("emits at turn end when the playback already finished", () => {
    const { mika } = pair();
    mika.beginTurn("t1", { kind: "user" });
    mika.record("t1", AOI);
    expect(mika.playbackFinished("t1")).toBeNull();
    expect(mika.endTurn("t1", spoke("hi"))?.to).toEqual(AOI);
  });

  it("emits nothing for a turn that failed, was stopped, did not speak, or had its playback interrupted", () => {
    const { mika } = pair();
    const ends = [
      { status: "error" as const, text: "hi", spoken: true },
      { status: "stopped" as const, text: "hi", spoken: true },
      { status: "ok" as const, text: "", spoken: false },
    ];
    for (const [i, end] of ends.entries()) {
      mika.beginTurn(`t${i}`, { kind: "user" });
      mika.record(`t${i}`, AOI);
      expect(mika.endTurn(`t${i}`, end)).toBeNull();
      expect(mika.playbackFinished(`t${i}`)).toBeNull();
    }
    mika.beginTurn("tp", { kind: "user" });
    mika.record("tp", AOI);
    mika.endTurn("tp", spoke("hi"));
    expect(mika.playbackFinished("tp", false)).toBeNull();
  });

  it("emits nothing for a reply that addressed no one", () => {
    const { mika } = pair();
    mika.beginTurn("t1", { kind: "user" });
    mika.endTurn("t1", spoke("hello"));
    expect(mika.playbackFinished("t1")).toBeNull();
  });

  it("turns the event into an addressed turn for the named character only", () => {
    const { mika, aoi } = pair();
    mika.beginTurn("t1", { kind: "user" });
    mika.record("t1", AOI);
    mika.endTurn("t1", spoke("Aoi, tea?"));
    const ev = mika.playbackFinished("t1")!;
    expect(mika.receive(ev)).toBeNull();
    expect(new Addressing({ self: { id: "ren", name: "Ren" } }).receive(ev)).toBeNull();
    const turn = aoi.receive(ev);
    expect(turn).toEqual({
      event: ev,
      context: [
        "addressed by: Mika (turn 1 of at most 3 in this exchange)",
        "To end the exchange, reply [SILENT].",
      ],
      message: "Mika: Aoi, tea?",
    });
  });

  it("ignores a malformed event instead of throwing", () => {
    const { aoi } = pair();
    for (const bad of [
      null,
      1,
      "x",
      {},
      { exchange: "x", chain: 0, from: MIKA, to: AOI, text: "", turnId: "t" },
    ]) {
      expect(aoi.receive(bad)).toBeNull();
    }
  });

  it("lets two characters address each other until the chain cap stops them", () => {
    const max = 3;
    const { mika, aoi } = pair(max);
    const windows = { mika, aoi };
    const peer = { mika: AOI, aoi: MIKA };
    // The user speaks to Mika; every reply addresses the other character.
    mika.beginTurn("m0", { kind: "user" });
    mika.record("m0", AOI);
    mika.endTurn("m0", spoke("Aoi, say hi"));
    let ev = mika.playbackFinished("m0");
    const chains: number[] = [];
    let turnNo = 0;
    while (ev) {
      const who = ev.to.id as "mika" | "aoi";
      const turn = windows[who].receive(ev);
      if (!turn) break;
      const turnId = `${who}${++turnNo}`;
      expect(windows[who].beginTurn(turnId, { kind: "addressed", event: turn.event })).toBe(true);
      chains.push(turn.event.chain);
      windows[who].record(turnId, peer[who]);
      windows[who].endTurn(turnId, spoke(`reply ${turnNo}`));
      ev = windows[who].playbackFinished(turnId);
    }
    expect(chains).toEqual([1, 2, 3]);
    expect(ev).toBeNull();
  });

  it("refuses an event past its own cap even when the sender's cap is higher", () => {
    const loose = new Addressing({ self: MIKA, chainMax: () => 10 });
    const strict = new Addressing({ self: AOI, chainMax: () => 2 });
    const incoming: CharacterAddressed = {
      exchange: "e",
      chain: 2,
      from: AOI,
      to: MIKA,
      text: "hi",
      turnId: "a",
    };
    expect(loose.beginTurn("m1", { kind: "addressed", event: incoming })).toBe(true);
    loose.record("m1", AOI);
    loose.endTurn("m1", spoke("hello Aoi"));
    const ev = loose.playbackFinished("m1")!;
    expect(ev.chain).toBe(3);
    expect(strict.receive(ev)).toBeNull();
    expect(strict.beginTurn("a1", { kind: "addressed", event: ev })).toBe(false);
  });

  it("ends the exchange on a [SILENT] reply, even one that addressed someone", () => {
    const { mika, aoi } = pair(5);
    mika.beginTurn("m1", { kind: "user" });
    mika.record("m1", AOI);
    mika.endTurn("m1", spoke("Aoi?"));
    const turn = aoi.receive(mika.playbackFinished("m1"))!;
    aoi.beginTurn("a1", { kind: "addressed", event: turn.event });
    aoi.record("a1", MIKA);
    expect(aoi.endTurn("a1", { status: "ok", text: "[SILENT]", spoken: false })).toBeNull();
    expect(aoi.playbackFinished("a1")).toBeNull();
    // A late event of that exchange reaching Aoi is dropped too.
    expect(aoi.receive({ ...turn.event, chain: 2 } satisfies CharacterAddressed)).toBeNull();
  });

  it("resets the chain on a user message and drops the old exchange's late events", () => {
    const { mika, aoi } = pair(2);
    mika.beginTurn("m1", { kind: "user" });
    mika.record("m1", AOI);
    mika.endTurn("m1", spoke("Aoi?"));
    const first = aoi.receive(mika.playbackFinished("m1"))!;
    aoi.beginTurn("a1", { kind: "addressed", event: first.event });
    aoi.record("a1", MIKA);
    aoi.endTurn("a1", spoke("Yes, Mika?"));
    const back = aoi.playbackFinished("a1")!;
    expect(back.chain).toBe(2);
    const queued: AddressedTurn = mika.receive(back)!;
    // The user writes to Mika before the queued addressed turn ran: the exchange is over.
    mika.beginTurn("m2", { kind: "user" });
    expect(mika.beginTurn("m-late", { kind: "addressed", event: queued.event })).toBe(false);
    expect(mika.receive(back)).toBeNull();
    // The user's new message starts again at chain 1.
    mika.record("m2", AOI);
    mika.endTurn("m2", spoke("Aoi, again"));
    const fresh = mika.playbackFinished("m2")!;
    expect(fresh.chain).toBe(1);
    expect(fresh.exchange).not.toBe(first.event.exchange);
    expect(aoi.receive(fresh)).not.toBeNull();
  });

  it("emits nothing while the cap is 0 (addressed turns off)", () => {
    const { mika } = pair(0);
    mika.beginTurn("m1", { kind: "user" });
    mika.record("m1", AOI);
    mika.endTurn("m1", spoke("Aoi?"));
    expect(mika.playbackFinished("m1")).toBeNull();
  });

  it("reads the cap when it matters and falls back to the default for a bad setting", () => {
    let cap = Number.NaN;
    const a = new Addressing({ self: MIKA, chainMax: () => cap });
    expect(a.chainMax()).toBe(DEFAULT_ADDRESSED_CHAIN_MAX);
    cap = 1;
    expect(a.chainMax()).toBe(1);
  });

  it("counts a call on a turn the engine never announced as a fresh start", () => {
    const { mika } = pair();
    expect(mika.record("t9", AOI)).toEqual({ kind: "ok" });
    expect(mika.record("t9", MIKA)).toEqual({ kind: "already", label: "Aoi" });
    mika.endTurn("t9", spoke("hi"));
    expect(mika.playbackFinished("t9")?.chain).toBe(1);
  });

  it("writes the addressed-turn context with the speaker's label", () => {
    const ev: CharacterAddressed = {
      exchange: "e",
      chain: 2,
      from: { id: "u2", name: "user" },
      to: AOI,
      text: "hi",
      turnId: "t",
    };
    expect(addressedTurnContext(ev, 4)).toEqual([
      "addressed by: user (character) (turn 2 of at most 4 in this exchange)",
      "To end the exchange, reply [SILENT].",
    ]);
  });

  it("reads the chain cap from the store key, the default while unset", () => {
    const data = new Map<string, unknown>();
    const kv = { get: (k: string) => data.get(k) };
    expect(addressedChainMax(kv)).toBe(DEFAULT_ADDRESSED_CHAIN_MAX);
    data.set("yui.rate_limit.addressed_chain_max", 2);
    expect(addressedChainMax(kv)).toBe(2);
    const a = new Addressing({ self: MIKA, chainMax: () => addressedChainMax(kv) });
    data.set("yui.rate_limit.addressed_chain_max", 0);
    a.beginTurn("t1", { kind: "user" });
    a.record("t1", AOI);
    a.endTurn("t1", spoke("Aoi?"));
    expect(a.playbackFinished("t1")).toBeNull();
  });
});
