import { describe, expect, it } from "vitest";
import type { ListenSettings } from "../../protocol/listen.ts";
import { createListening, type ListenState, tuningOf } from "./listening.ts";
import type { Mic, MicEvents, MicTuning } from "./mic.ts";

/** A detector driven by the test: the real one needs a microphone (tests/listen.e2e.test.ts has it). */
function rig(opts: { herVoice?: () => boolean; echo?: boolean; text?: (n: number) => string } = {}) {
  const calls: string[] = [];
  let events: MicEvents | null = null;
  const tunings: MicTuning[] = [];
  const said: string[] = [];
  const partials: string[] = [];
  const states: ListenState[] = [];
  let n = 0;
  const settings: ListenSettings = { hands_free: false };
  const mic: Mic = {
    start: async () => void calls.push("start"),
    stop: async () => void calls.push("stop"),
    tune: (t) => void tunings.push(t),
    echoCancelled: () => opts.echo ?? true,
    dispose: async () => void calls.push("dispose"),
  };
  const l = createListening({
    openMic: async (e, t) => {
      calls.push("load");
      events = e;
      tunings.push(t);
      return mic;
    },
    transcribe: async (audio) => ({ text: opts.text?.(n++) ?? `heard ${audio.length}` }),
    settings: () => settings,
    herVoice: opts.herVoice ?? (() => false),
    onInterrupt: () => void calls.push("interrupt"),
    onPartial: (t) => void partials.push(t),
    onUtterance: (t) => void said.push(t),
    onState: (s) => void states.push(s),
    onError: (m) => void calls.push(`error: ${m}`),
  });
  const settle = () => new Promise((r) => setTimeout(r, 0));
  const ev = () => events!;
  return { l, calls, said, partials, states, tunings, settle, ev };
}

const frame = () => new Float32Array(512).fill(0.1);

describe("listening", () => {
  it("opens nothing until hands-free is on; each utterance becomes one message; off closes the microphone", async () => {
    const r = rig();
    await r.settle();
    expect(r.calls).toEqual([]);
    r.l.setHandsFree(true);
    await r.settle();
    await r.settle();
    expect(r.calls).toEqual(["load", "start"]);
    expect(r.l.state()).toBe("listening");
    r.ev().onSpeechStart();
    expect(r.l.state()).toBe("hearing");
    r.ev().onSpeechEnd(new Float32Array(16000));
    await r.settle();
    await r.settle();
    expect(r.said).toEqual(["heard 16000"]);
    r.ev().onSpeechStart();
    r.ev().onMisfire();
    await r.settle();
    expect(r.said).toHaveLength(1);
    r.l.setHandsFree(false);
    await r.settle();
    await r.settle();
    expect(r.calls).toEqual(["load", "start", "stop"]);
    expect(r.l.state()).toBe("off");
    expect(r.states).toContain("transcribing");
  });

  it("interrupts her when the user starts speaking over her voice, not otherwise", async () => {
    let speaking = false;
    const r = rig({ herVoice: () => speaking });
    r.l.setHandsFree(true);
    await r.settle();
    await r.settle();
    r.ev().onSpeechStart();
    expect(r.calls).not.toContain("interrupt");
    speaking = true;
    r.ev().onSpeechStart();
    expect(r.calls.filter((c) => c === "interrupt")).toHaveLength(1);
  });

  it("raises the threshold while she speaks only where the platform gave no echo cancellation", async () => {
    const speaking = true;
    const without = rig({ herVoice: () => speaking, echo: false });
    without.l.setHandsFree(true);
    await without.settle();
    await without.settle();
    without.ev().onFrame(0, frame());
    expect(without.tunings.at(-1)).toEqual(tuningOf({ hands_free: true }, true));
    expect(without.tunings.at(-1)!.positive).toBeGreaterThan(tuningOf({ hands_free: true }).positive);
    const withEc = rig({ herVoice: () => speaking, echo: true });
    withEc.l.setHandsFree(true);
    await withEc.settle();
    await withEc.settle();
    withEc.ev().onFrame(0, frame());
    expect(withEc.tunings).toEqual([tuningOf({ hands_free: false })]);
  });

  it("push-to-talk keeps every frame while held, shows partials, sends on release, or keeps the text", async () => {
    const r = rig({ text: (n) => ["what time", "what time is it", "tell me", "tell me a joke"][n] ?? "" });
    r.l.pushStart();
    await r.settle();
    await r.settle();
    expect(r.calls).toEqual(["load", "start"]);
    expect(r.l.state()).toBe("talking");
    // 1.5 s of frames: a partial transcript shows.
    for (let i = 0; i < 48; i++) r.ev().onFrame(0.9, frame());
    await r.settle();
    expect(r.partials).toEqual(["what time"]);
    // What the detector says about speech is not a hands-free utterance while talking.
    r.ev().onSpeechEnd(new Float32Array(100));
    r.l.pushEnd(true);
    await r.settle();
    await r.settle();
    await r.settle();
    expect(r.calls).toEqual(["load", "start", "stop"]);
    expect(r.said).toEqual(["what time is it"]);
    expect(r.partials).toEqual(["what time", "what time is it"]);
    // Released without sending: the text stays for the user to fix.
    r.l.pushStart();
    await r.settle();
    await r.settle();
    for (let i = 0; i < 20; i++) r.ev().onFrame(0.9, frame());
    r.l.pushEnd(false);
    await r.settle();
    await r.settle();
    await r.settle();
    expect(r.said).toEqual(["what time is it"]);
    expect(r.partials.at(-1)).toBe("tell me");
  });

  it("a tap of push-to-talk sends nothing; pressing it while she speaks interrupts her", async () => {
    const r = rig({ herVoice: () => true });
    r.l.pushStart();
    expect(r.calls).toEqual(["interrupt"]);
    await r.settle();
    await r.settle();
    r.ev().onFrame(0.9, frame());
    r.l.pushEnd(true);
    await r.settle();
    await r.settle();
    expect(r.said).toEqual([]);
  });
});

describe("listening's early transcription", () => {
  it("sends what was heard once the speech has been quiet 200 ms, and uses it when the utterance ends", async () => {
    const sent: number[] = [];
    const r = rig({ text: (n) => `guess ${n}` });
    r.l.setHandsFree(true);
    await r.settle();
    await r.settle();
    const ev = r.ev();
    ev.onSpeechStart();
    for (let i = 0; i < 20; i++) ev.onFrame(0.9, frame());
    // Quiet, then the user goes on: the first guess is dropped.
    for (let i = 0; i < 7; i++) ev.onFrame(0.05, frame());
    for (let i = 0; i < 5; i++) ev.onFrame(0.9, frame());
    for (let i = 0; i < 7; i++) ev.onFrame(0.05, frame());
    sent.push(r.said.length);
    // The detector ends the utterance 700 ms later: the second guess is its transcript, nothing new is sent.
    for (let i = 0; i < 15; i++) ev.onFrame(0.05, frame());
    ev.onSpeechEnd(new Float32Array(16000));
    await r.settle();
    await r.settle();
    expect(sent).toEqual([0]);
    expect(r.said).toEqual(["guess 1"]);
  });
});
