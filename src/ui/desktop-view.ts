/**
 * The desktop app's character window (`?view=desktop&preset=<id>&role=main|pet`, docs/desktop.md): her stage
 * filling a transparent window, a speech bubble beside her with the streamed reply that fades after it, and
 * a small input that a click on her opens. The conversation is the chat panel's own (createPanel): the same
 * engine, history and turns as the main view, with the tools of the desktop app's main or pet window; this view
 * lays it out for the desktop from its parts: her body (desktop-body.ts), the bubble (desktop-bubble.ts), her
 * input (desktop-input.ts), what takes clicks (desktop-silhouette.ts) and the shell (desktop-shell.ts).
 */
import { activePresetId, getPreset } from "../app/presets/presets.ts";
import type { ViewContext } from "./context.ts";
import { followBody } from "./desktop-body.ts";
import { type BubbleView, bubbleElement, followReplies } from "./desktop-bubble.ts";
import { followFace, shellBubble } from "./desktop-bubble-window.ts";
import { herInput } from "./desktop-input.ts";
import { linkShell } from "./desktop-shell.ts";
import { boxOf, followSilhouette } from "./desktop-silhouette.ts";
import { h } from "./dom.ts";
import { backendSign, FIRST_RUN, followBackend } from "./first-run.ts";
import { createPanel } from "./panel.ts";
import { followDoze } from "./stage-doze.ts";
import "./desktop.css";

/** Mounts the character window of `?preset=` (main's character when absent). */
export function mountDesktop(root: HTMLElement, ctx: ViewContext): void {
  const params = new URLSearchParams(location.search);
  const presetId = params.get("preset") ?? activePresetId(ctx.kv);
  const role = params.get("role") === "pet" ? "pet" : "main";
  const opaque = params.get("opaque") === "1";
  document.body.classList.toggle("desktop-opaque", opaque);
  if (!getPreset(ctx.kv, presetId)) {
    root.append(h("p", { class: "desktop-missing" }, `No character ${presetId}.`));
    return;
  }
  const body = followBody(ctx, presetId, role);
  const link = body.link;
  // The desktop app's window kinds (window-tools.ts): main's window and every pet window declare browser,
  // main's also body_action and look.
  const panel = createPanel({
    ...ctx,
    presetId,
    kind: role,
    stage: true,
    signals: role === "main",
    avatarExecutor: link ? () => link.executor() : undefined,
  });
  panel.stage?.onReady((stage) => {
    body.attach(stage, panel.parts.stageBox);
    // Her doze: this window's own timer; main's tells the host (her wandering pauses while she dozes).
    followDoze({
      ctx,
      stage,
      on: panel.on,
      bodyOf: link ? presetId : undefined,
    });
  });
  // Her bubble: drawn in the page until a shell says it draws it in a window of its own beside her head.
  let bubbleView: BubbleView | null = null;
  const bubble = bubbleElement(
    () => shape.report(),
    (a) => control.action(a),
  );
  const sign = backendSign();
  const box = h("div", { class: "desktop", "data-testid": "desktop" }, bubble.el, sign, panel.el);
  root.append(box);
  const control = followReplies(panel.on, {
    show: (b) => (bubbleView ?? bubble).show(b),
    hide: () => (bubbleView ?? bubble).hide(),
  });
  // A message wakes her or interrupts the bed's setup.
  panel.on("sent", () => link?.poke());

  const input = herInput({
    box,
    parts: panel.parts,
    onHer: (x, y) => shape.onHer(x, y),
    clicked: () => link?.poke(),
    changed: () => shape.report(),
  });
  const shell = linkShell((m) => {
    if (m.type === "shell") {
      document.body.classList.toggle("desktop-opaque", opaque || !m.compositor);
      onShell(m);
    } else if (m.type === "open-input") input.open();
    else if (m.type === "bubble-action") control.action(m.action);
    else if (m.type === "talk") {
      // The global hold key: her input open while held shows the words as they are recognised.
      if (m.down) input.open();
      panel.talk(m.down);
    }
  });
  // In a shell: the bubble moves to its window (with her face's box), its buttons open Chat and Settings, and
  // without a tray main says how to reach her menu.
  let hinted = false;
  const onShell = (m: { bubbles?: boolean; tray?: boolean }) => {
    if (m.bubbles && !bubbleView) {
      bubble.off();
      bubbleView = shellBubble(shell);
      control.canOpen(true);
      const now = control.shown();
      if (now) bubbleView.show(now);
      panel.stage?.onReady((stage) => followFace(stage, shell));
    }
    if (m.tray === false && role === "main" && !hinted) control.hint({ text: FIRST_RUN.noTray });
    if (m.tray === false) hinted = true;
  };
  const shape = followSilhouette({
    shell,
    stage: panel.stage,
    // The bubble, the open input, and the listening mark on her (a click on it stops listening).
    extra: () => [
      boxOf(bubble.el),
      boxOf(sign),
      input.isOpen() ? boxOf(panel.parts.form) : null,
      boxOf(panel.parts.listenBadge),
    ],
    clip: body.clip,
  });
  // Her first-run words and the sign on her while her backend does not answer (first-run.ts).
  followBackend(ctx.kv, presetId, control, sign, () => shape.report());
  shape.report();
}
