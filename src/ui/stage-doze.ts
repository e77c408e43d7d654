/**
 * Her doze in a page with her stage (docs/avatar.md "Dozing"): the delay from this device's setting (`yui.doze`),
 * and what concerns her besides what the stage sees itself: a message (the user's, a turn for her), a turn under
 * way, the user's voice (the listening mark hearing them). Main's desktop window also tells the host when she
 * dozes and wakes (`body_rest`: her own wandering pauses while she dozes). Pet windows doze on their own timers.
 */
import type { StageHandle } from "../avatar/stage.ts";
import { DOZE_KEY, dozeDelayOf } from "../protocol/doze.ts";
import type { ListenState } from "../voice/listen/listening.ts";
import type { ViewContext } from "./context.ts";
import type { PanelOn } from "./panel-events.ts";

/** The listening states in which the user speaks or their words are on their way (not merely listening). */
const USER_SPEAKS = new Set<ListenState>(["starting", "hearing", "talking", "transcribing"]);

export interface DozeFollow {
  ctx: ViewContext;
  stage: StageHandle;
  /** The panel's events: a message sent, a turn under way, her listening state. */
  on: PanelOn;
  /** Main's desktop window: the preset whose body the host pauses while she dozes. */
  bodyOf?: string;
}

/** Wires her doze in the page; returns what undoes it. */
export function followDoze(f: DozeFollow): () => void {
  const { ctx, stage } = f;
  const apply = () => stage.setDozeDelay(dozeDelayOf(ctx.kv));
  apply();
  let dozing = false;
  const tell = () => {
    if (f.bodyOf) ctx.bridge.invoke("body_rest", { presetId: f.bodyOf, dozing }).catch(() => {});
  };
  // A page starts awake: a body paused by an earlier page (reloaded while she dozed) wanders again.
  tell();
  const offs = [
    ctx.kv.watch(DOZE_KEY, apply),
    f.on("sent", () => stage.wake()),
    f.on("busy", (on) => stage.holdAwake("turn", on)),
    f.on("listening", (state) => stage.holdAwake("voice", USER_SPEAKS.has(state))),
    stage.onDoze((on) => {
      dozing = on;
      tell();
    }),
    // A new connection (the host restarted, the page reconnected) hears where she is.
    ctx.bridge.onHello(tell),
  ];
  return () => {
    for (const off of offs) off();
  };
}
