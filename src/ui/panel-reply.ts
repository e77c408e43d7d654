/**
 * One turn's reply in the panel: the bubble filling as the text streams, the backend's tool status and the
 * client's tool calls as chips, the cues on the stage and in the voice, and the end put in words (an error from
 * its typed failure, "(stopped)", "(no reply)").
 */
import { isSilent } from "../app/addressing/addressing.ts";
import type { TurnHandlers, TurnResult } from "../app/session/character-session.ts";
import type { EngineEvent } from "../io/chat/stream/types.ts";
import { CueSchema } from "../protocol/cue.ts";
import type { Speech } from "../voice/speech.ts";
import { h } from "./dom.ts";
import { cutOffNote, plainError } from "./errors.ts";
import type { PanelEvents } from "./panel-events.ts";
import type { PanelView } from "./panel-view.ts";
import type { PanelVoice } from "./panel-voice.ts";
import type { StageArea } from "./stage-area.ts";

export interface ReplyDeps {
  view: PanelView;
  stage: StageArea | null;
  voice: PanelVoice;
  /** Tells the view around the panel the reply as it streams and as it ends (panel-events.ts). */
  emit<K extends "reply" | "reply-end" | "error">(name: K, value: PanelEvents[K]): void;
}

/** Plays one turn into a new reply bubble; a turn that did not run (`end` null) leaves no bubble. */
export async function playReply(
  deps: ReplyDeps,
  signal: AbortSignal,
  run: (h: TurnHandlers) => Promise<TurnResult>,
): Promise<TurnResult> {
  const { view, stage } = deps;
  const reply = view.bubble("assistant", "");
  reply.classList.add("pending");
  const text = reply.querySelector(".text")!;
  const tools = h("div", { class: "tools" });
  reply.append(tools);
  view.status.textContent = "thinking…";
  stage?.newReply();
  deps.emit("reply", "");
  let shown = "";
  // The sentence being spoken is marked in the reply's text (its words unchanged); anything else the bubble
  // shows (an error, "(no reply)") is left as it is.
  const paint = () => {
    const s = deps.voice.speaking();
    const now = text.textContent ?? "";
    if (!s || now !== shown || s.end > shown.length) {
      if (text.childElementCount) text.textContent = now;
      return;
    }
    // The words only: the spaces around the sentence belong to its segment, not to the mark.
    const part = shown.slice(s.start, s.end);
    const from = s.start + (part.length - part.trimStart().length);
    const to = s.start + part.trimEnd().length;
    text.replaceChildren(
      shown.slice(0, from),
      h("mark", { class: "speaking", "data-testid": "speaking" }, shown.slice(from, to)),
      shown.slice(to),
    );
  };
  // A new turn silences the last one; this reply speaks if the character's voice is on.
  const sp = deps.voice.newReply(paint);
  const onText = (delta: string) => {
    shown += delta;
    text.textContent = shown;
    deps.emit("reply", shown);
    reply.classList.remove("pending");
    view.status.textContent = "replying…";
    // Speaking, cues play as their sentence's audio starts; silent, as the text shows.
    paint();
    if (sp) sp.text(delta);
    else stage?.reveal(shown.length);
    view.scrollDown();
  };
  try {
    const result = await run({ signal, onEvent: toolChips(tools, onText, stage, sp) });
    const end = result.end;
    reply.classList.remove("pending");
    // Stopped or failed: silent at once; otherwise the speech plays out and reveals the cues left.
    // A [SILENT] reply is not read out.
    const speakOn =
      !!sp && !!end && end.outcome !== "stopped" && end.outcome !== "error" && !isSilent(end.text ?? "");
    if (!speakOn) sp?.stop();
    if (!end) {
      reply.remove();
      deps.emit("reply-end", null);
      return result;
    }
    if (end.outcome === "error") {
      reply.classList.add("error");
      text.textContent = plainError(result.error ?? { kind: "other", message: end.error ?? "" });
      text.setAttribute("data-testid", "error");
      text.setAttribute("title", end.error ?? "");
      deps.emit("error", text.textContent);
    } else if (end.outcome === "stopped") {
      reply.classList.add("stopped");
      if (!shown) text.textContent = "(stopped)";
    } else if ((end.outcome === "silent" && !shown) || isSilent(end.text)) {
      reply.classList.add("silent");
      text.textContent = "(no reply)";
    }
    // What was said stays; the reply says that the backend cut it off, and why.
    if (end.incomplete) {
      reply.classList.add("cut-off");
      tools.append(
        h("span", { class: "chip cut-off", "data-testid": "cut-off" }, cutOffNote(end.incomplete.reason)),
      );
    }
    if (speakOn) sp!.end();
    else stage?.reveal(Number.MAX_SAFE_INTEGER);
    view.scrollDown();
    deps.emit("reply-end", text.textContent ?? "");
    return result;
  } finally {
    view.status.textContent = "";
  }
}

/** The turn's events: text to `onText`, cues to the stage and the voice, tool status and calls as chips. */
function toolChips(
  tools: HTMLElement,
  onText: (delta: string) => void,
  stage: StageArea | null,
  sp: Speech | null,
): (e: EngineEvent) => void {
  const chips = new Map<string, HTMLElement>();
  return (e) => {
    if (e.type === "text") onText(e.delta);
    else if (e.type === "cue") {
      stage?.cue(e.offset, e.arguments);
      const cue = CueSchema.safeParse(e.arguments);
      if (cue.success) sp?.cue(e.offset, cue.data);
    } else if (e.type === "tool_status") {
      let chip = chips.get(e.call_id);
      if (!chip) {
        chip = h("span", { class: "chip", "data-testid": "tool-status" });
        chips.set(e.call_id, chip);
        tools.append(chip);
      }
      chip.textContent = `${e.name}: ${e.status}`;
      chip.dataset.status = e.status;
    } else if (e.type === "tool_call" && e.name !== "generate_express") {
      const result = typeof e.result === "string" ? e.result : e.result.text;
      tools.append(h("span", { class: "chip client", "data-testid": "tool-call" }, `${e.name} → ${result}`));
    }
  };
}
