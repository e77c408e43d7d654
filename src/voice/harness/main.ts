import { type Cue, type CueScheduler, createCueScheduler } from "../../avatar/cues.ts";
import type { MouthWeights } from "../lipsync.ts";
import { createVoicePlayer, type VoicePlayer } from "../player.ts";
import { createSpeech, type Speech, type VoiceEvent } from "../speech.ts";

// Test and benchmark page: the page side of the voice, driven by Playwright through window.voice.

interface Played {
  cue: Cue;
  t: number;
  speaking: number | null;
}

const state = {
  timeline: [] as VoiceEvent[],
  mouths: [] as Array<{ t: number; w: MouthWeights }>,
  notes: [] as Array<{ index: number; message: string }>,
  played: [] as Played[],
  speaking: null as number | null,
};
let speech: Speech | null = null;
let player: VoicePlayer | null = null;
let cues: CueScheduler | null = null;

const api = {
  create(presetId: string) {
    speech?.dispose();
    player = createVoicePlayer();
    const p = player;
    state.timeline.length = 0;
    state.mouths.length = 0;
    state.notes.length = 0;
    state.played.length = 0;
    const scheduler = createCueScheduler((cue) =>
      state.played.push({ cue, t: p.context.currentTime, speaking: state.speaking }),
    );
    speech = createSpeech({
      presetId,
      player: p,
      timeline: state.timeline,
      onReveal: (pos) => scheduler.reveal(pos),
      onMouth: (w) => state.mouths.push({ t: p.context.currentTime, w }),
      onSpeaking: (seg) => {
        state.speaking = seg?.index ?? null;
      },
      onSkip: (seg, message) => state.notes.push({ index: seg.index, message }),
    });
    cues = scheduler;
  },
  text: (delta: string) => speech!.text(delta),
  cue(offset: number, cue: Cue) {
    cues!.add(offset, cue);
    speech!.cue(offset, cue);
  },
  end: () => speech!.end(),
  stop: () => speech!.stop(),
  active: () => speech!.active(),
  finished: () => speech!.finished(),
  playing: () => player?.playing() ?? false,
  now: () => player?.context.currentTime ?? 0,
  state: () => JSON.parse(JSON.stringify(state)) as typeof state,
  /**
   * One reply as the app gets it: streams Chat Completions through the host's backend proxy, feeds each text
   * delta to the speech, and times (page clock) the first text delta from the request and the first audio
   * from that delta.
   */
  async reply(presetId: string): Promise<{ firstTextMs: number; firstAudioMs: number }> {
    api.create(presetId);
    const sp = speech!;
    const t0 = performance.now();
    const res = await fetch(`/api/backend/${presetId}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "scripted-model",
        stream: true,
        messages: [{ role: "user", content: "hi" }],
      }),
    });
    const reader = res.body!.getReader();
    const dec = new TextDecoder();
    let buf = "";
    let first = -1;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buf += dec.decode(value, { stream: true });
      for (let i = buf.indexOf("\n\n"); i >= 0; i = buf.indexOf("\n\n")) {
        const data = buf
          .slice(0, i)
          .split("\n")
          .filter((l) => l.startsWith("data:"))
          .map((l) => l.slice(5).trim())
          .join("");
        buf = buf.slice(i + 2);
        if (!data || data === "[DONE]") continue;
        const delta = (JSON.parse(data) as { choices?: Array<{ delta?: { content?: string } }> }).choices?.[0]
          ?.delta?.content;
        if (!delta) continue;
        if (first < 0) first = performance.now();
        sp.text(delta);
      }
    }
    sp.end();
    const started = () => state.timeline.find((e) => e.type === "start" || e.type === "skip");
    while (!started()) await new Promise((r) => setTimeout(r, 2));
    const s = started()!;
    if (s.type === "skip") throw new Error(`the first segment was not spoken: ${s.detail}`);
    sp.stop();
    return { firstTextMs: first - t0, firstAudioMs: s.at - first };
  },
  /**
   * Plays silence, a two-formant tone ("a": 750 + 1250 Hz), silence, through the player, sampling the
   * mouth every frame with the audio clock; returns the samples and where the tone lies.
   */
  async tone(): Promise<{ samples: Array<{ t: number; w: MouthWeights }>; from: number; to: number }> {
    const p = player ?? createVoicePlayer();
    player = p;
    const rate = p.context.sampleRate;
    const buf = p.context.createBuffer(1, Math.round(rate * 1.5), rate);
    const d = buf.getChannelData(0);
    for (let i = Math.round(rate * 0.5); i < Math.round(rate * 1.0); i++) {
      d[i] = 0.3 * Math.sin((2 * Math.PI * 750 * i) / rate) + 0.2 * Math.sin((2 * Math.PI * 1250 * i) / rate);
    }
    const samples: Array<{ t: number; w: MouthWeights }> = [];
    const ac = new AbortController();
    if (p.context.state === "suspended") await p.context.resume();
    const start = p.context.currentTime;
    let sampling = true;
    const loop = () => {
      if (!sampling) return;
      samples.push({ t: p.context.currentTime - start, w: p.mouth() });
      requestAnimationFrame(loop);
    };
    requestAnimationFrame(loop);
    await p.play(buf, ac.signal);
    sampling = false;
    return { samples, from: 0.5, to: 1.0 };
  },
};

declare global {
  interface Window {
    voice: typeof api;
  }
}
window.voice = api;
document.title = "voice ready";
