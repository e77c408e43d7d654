/**
 * The desktop app's character window (`?view=desktop&preset=<id>&role=main|pet`, docs/desktop.md): her stage
 * filling a transparent window, a speech bubble beside her with the streamed reply that fades after it, and
 * a small input that a click on her opens. The conversation is the chat panel's own (createPanel): the same
 * engine, history and turns as the main view, with the tools of the desktop app's main or pet window; this view
 * only lays it out for the desktop. It reports
 * her silhouette (from the rendered alpha) to the shell, which takes clicks only there. Main's window also lends
 * itself to her body (docs/body.md "In main's page"): it holds `body_attach`, plays the host's `yui://body`
 * events on the stage, and hands the panel's body_action and look the host's executor over the bridge.
 */
import { activePresetId, getPreset } from "../app/presets/presets.ts";
import type { Stage } from "../avatar/stage.ts";
import { executorOverBridge } from "../body/remote.ts";
import {
  type AvatarExecutor,
  BODY_EVENT,
  type BodyActionResult,
  type BodyEvent,
  BodyEventSchema,
  BodySettingsSchema,
  bodySettingsKey,
  OCCLUSION_EVENT,
  OcclusionEventSchema,
} from "../protocol/body.ts";
import type { BridgeClient } from "./bridge-client.ts";
import type { ViewContext } from "./context.ts";
import { alphaRects, type Rect, toPixels } from "./desktop-silhouette.ts";
import { h } from "./dom.ts";
import { createPanel } from "./panel.ts";
import "./desktop.css";

/** How long the bubble stays after her reply ends, then fades. */
export const BUBBLE_HOLD_MS = 8000;
/** The silhouette's grain in CSS pixels, and how often it is sampled at most while she is drawn. */
const CELL = 8;
const SAMPLE_MS = 150;

interface ShellWindow {
  webkit?: { messageHandlers?: { yui?: { postMessage(m: string): void } } };
  __yuiShell?: (m: unknown) => void;
  __yuiStage?: Pick<Stage, "setPosture" | "setOccluded" | "setReducedMotion"> & {
    renderer: { render: (...a: unknown[]) => void };
  };
}
const w = window as unknown as ShellWindow;

/** Sends a message to the desktop shell; a no-op in an ordinary browser. */
function toShell(m: unknown): void {
  w.webkit?.messageHandlers?.yui?.postMessage(JSON.stringify(m));
}

/**
 * The host's avatar executor over the bridge (src/body/remote.ts), except that a body_action the host could not
 * answer (the bridge went down) still ends in one of the spec's words: the caller's deadline when it was the
 * caller that stopped, otherwise `unsupported` (no executor reachable).
 */
export function bridgeExecutor(bridge: BridgeClient): AvatarExecutor {
  const remote = executorOverBridge((c, a, o) => bridge.invoke(c, a, o));
  return {
    ...remote,
    async bodyAction(args, signal) {
      try {
        return await remote.bodyAction(args, signal);
      } catch {
        return (signal.aborted ? "timeout" : "unsupported") satisfies BodyActionResult;
      }
    },
  };
}

/** What main's window holds of her body: the executor while the host lends it, and the clicks and messages. */
export interface BodyLink {
  /** The host's executor from the first `yui://body` event for this preset until the bridge closes. */
  executor(): AvatarExecutor | null;
  /** A click on her or a message from the user (fire and forget). */
  poke(): void;
  dispose(): void;
}

/**
 * Holds `body_attach` for `presetId` (again after every reconnect) and passes each `yui://body` event for it to
 * `onEvent`. The hold is let go on dispose; `detached` (another main took it) ends it until the next connect.
 */
export function linkBody(bridge: BridgeClient, presetId: string, onEvent: (ev: BodyEvent) => void): BodyLink {
  const proxy = bridgeExecutor(bridge);
  let available = false;
  let hold: AbortController | null = null;
  const attach = () => {
    hold?.abort();
    const ac = new AbortController();
    hold = ac;
    bridge.invoke("body_attach", { presetId }, { signal: ac.signal }).then(
      () => {
        // detached or unsupported: this window no longer (or never) holds her body.
        if (hold === ac) available = false;
      },
      () => {},
    );
  };
  const offHello = bridge.onHello(attach);
  const offState = bridge.onState((s) => {
    if (s === "closed") available = false;
  });
  const offEvent = bridge.on(BODY_EVENT, (payload) => {
    const ev = BodyEventSchema.safeParse(payload);
    if (!ev.success || ev.data.presetId !== presetId) return;
    available = true;
    onEvent(ev.data);
  });
  // Mounted after the first hello (app.ts waits for it): attach for this connection now.
  attach();
  return {
    executor: () => (available ? proxy : null),
    poke() {
      bridge.invoke("body_poke", {}).catch(() => {});
    },
    dispose() {
      offHello();
      offState();
      offEvent();
      hold?.abort();
      hold = null;
      available = false;
    },
  };
}

/** Reduced motion: the system's preference or the Character tab's switch (docs/body.md). */
function reducedMotion(kv: ViewContext["kv"], presetId: string): boolean {
  const setting = BodySettingsSchema.safeParse(kv.get(bodySettingsKey(presetId)));
  const system = typeof matchMedia === "function" && matchMedia("(prefers-reduced-motion: reduce)").matches;
  return system || (setting.success && setting.data.reduced_motion);
}

/** A pet window's cover: `yui://occlusion` events for its preset (main's cover comes with its body event). */
function followCover(bridge: BridgeClient, presetId: string, on: (occluded: boolean) => void): void {
  const off = bridge.on(OCCLUSION_EVENT, (payload) => {
    const ev = OcclusionEventSchema.safeParse(payload);
    if (ev.success && ev.data.presetId === presetId) on(ev.data.occluded);
  });
  addEventListener("pagehide", () => off());
}

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
  // Main's body: the host's executor while this window holds it, her postures from its events.
  let body: BodyEvent | null = null;
  // A pet window: whether other windows cover all of it (`yui://occlusion`; main's comes with its body).
  let petCovered = false;
  const applyBody = () => {
    const stage = w.__yuiStage;
    if (!stage) return;
    stage.setReducedMotion(reducedMotion(ctx.kv, presetId));
    if (role === "pet") stage.setOccluded(petCovered);
    if (!body) return;
    stage.setPosture(body);
    stage.setOccluded(body.occluded);
  };
  if (role === "pet")
    followCover(ctx.bridge, presetId, (on) => {
      petCovered = on;
      applyBody();
    });
  const link =
    role === "main"
      ? linkBody(ctx.bridge, presetId, (ev) => {
          body = ev;
          applyBody();
        })
      : null;
  if (link) {
    ctx.kv.watch(bodySettingsKey(presetId), applyBody);
    if (typeof matchMedia === "function")
      matchMedia("(prefers-reduced-motion: reduce)").addEventListener("change", applyBody);
    addEventListener("pagehide", () => link.dispose());
  }
  // The desktop app's window kinds (pet-window-tools.ts): main's window and every pet window declare browser,
  // main's also body_action and look.
  const panel = createPanel({
    ...ctx,
    presetId,
    kind: role,
    stage: true,
    signals: role === "main",
    avatarExecutor: link ? () => link.executor() : undefined,
  });
  const bubbleText = h("div", { class: "bubble-text", "data-testid": "bubble-text" });
  const bubble = h("div", { class: "bubble", "data-testid": "bubble", hidden: true }, bubbleText);
  const box = h("div", { class: "desktop", "data-testid": "desktop" }, bubble, panel.el);
  root.append(box);

  const log = panel.el.querySelector<HTMLElement>('[data-testid="log"]')!;
  const input = panel.el.querySelector<HTMLTextAreaElement>('[data-testid="input"]')!;
  const form = input.form!;
  const stageBox = panel.el.querySelector<HTMLElement>('[data-testid="stage"]')!;

  // ---- the input beside her ----
  const setInput = (on: boolean) => {
    box.classList.toggle("input-open", on);
    if (on) input.focus();
    report();
  };
  // A click on her, not on the transparent space around her (which takes clicks while click-through is off).
  stageBox.addEventListener("click", (e) => {
    const inside = herRects().some(
      ([x, y, w, h]) => e.clientX >= x && e.clientX < x + w && e.clientY >= y && e.clientY < y + h,
    );
    if (!inside) return;
    setInput(!box.classList.contains("input-open"));
    link?.poke();
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Escape") setInput(false);
  });
  // The panel's own submit handler sends (registered first); this one puts the input away.
  form.addEventListener("submit", () => setInput(false));
  // A message wakes her or interrupts the bed's setup (seen before the panel's handler empties the input).
  box.addEventListener(
    "submit",
    () => {
      if (input.value.trim()) link?.poke();
    },
    true,
  );

  // ---- the bubble: the reply of the turn playing now, as it streams ----
  let fade: ReturnType<typeof setTimeout> | undefined;
  const lastReply = () => {
    const all = log.querySelectorAll<HTMLElement>(".msg.assistant");
    return all[all.length - 1]?.querySelector<HTMLElement>(".text")?.textContent ?? "";
  };
  const busy = () => panel.el.classList.contains("busy");
  const follow = () => {
    if (!busy()) return;
    clearTimeout(fade);
    const t = lastReply();
    bubbleText.textContent = t || "…";
    bubble.hidden = false;
    bubble.classList.remove("fading");
    report();
  };
  new MutationObserver(follow).observe(log, { childList: true, subtree: true, characterData: true });
  new MutationObserver(() => {
    if (busy()) return follow();
    // The turn ended: the final words (or the error in plain words) stay, then fade.
    const t = lastReply();
    if (t) bubbleText.textContent = t;
    clearTimeout(fade);
    fade = setTimeout(() => {
      bubble.classList.add("fading");
      fade = setTimeout(() => {
        bubble.hidden = true;
        report();
      }, 800);
    }, BUBBLE_HOLD_MS);
  }).observe(panel.el, { attributes: true, attributeFilter: ["class"] });

  // ---- her silhouette, for click-through ----
  const small = document.createElement("canvas");
  const small2d = small.getContext("2d", { willReadFrequently: true });
  let silhouette: Rect[] = [];
  let lastSent = "";
  const elRect = (el: Element): Rect | null => {
    if ((el as HTMLElement).hidden) return null;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 ? [r.left, r.top, r.width, r.height] : null;
  };
  // Her silhouette; without a drawn character (no WebGL, no model) the placeholder's note is what the user
  // can grab.
  function herRects(): Rect[] {
    if (silhouette.length) return silhouette;
    const note = stageBox.querySelector(".stage-note");
    return note ? [elRect(note)].filter((r): r is Rect => !!r) : [];
  }
  function report(): void {
    const open = box.classList.contains("input-open") ? form : null;
    const badge = stageBox.querySelector(".listen-badge.on-stage"); // listening (panel-listen.ts): a click ends it
    const shown = [bubble, open, badge].map((el) => el && elRect(el)).filter((r): r is Rect => !!r);
    const her = herRects();
    const msg = { type: "shape", rects: [...her, ...shown], drag: her };
    const s = JSON.stringify(msg);
    if (s === lastSent) return;
    lastSent = s;
    toShell(msg);
  }
  let lastSample = 0;
  function sample(canvas: HTMLCanvasElement): void {
    const now = performance.now();
    if (now - lastSample < SAMPLE_MS || !small2d) return;
    lastSample = now;
    const r = canvas.getBoundingClientRect();
    const cols = Math.max(1, Math.ceil(r.width / CELL));
    const rows = Math.max(1, Math.ceil(r.height / CELL));
    if (small.width !== cols || small.height !== rows) {
      small.width = cols;
      small.height = rows;
    }
    small2d.clearRect(0, 0, cols, rows);
    // Right after the stage's render, in the same task: the drawing buffer still holds this frame.
    small2d.drawImage(canvas, 0, 0, cols, rows);
    const data = small2d.getImageData(0, 0, cols, rows).data;
    const alpha = new Uint8Array(cols * rows);
    for (let i = 0; i < alpha.length; i++) alpha[i] = data[i * 4 + 3]!;
    silhouette = toPixels(alphaRects(alpha, cols, rows), CELL, r.left, r.top);
    report();
  }
  // The stage is created on demand by the panel; hook its renderer once it is there.
  const hook = setInterval(() => {
    const stage = w.__yuiStage;
    const canvas = stageBox.querySelector<HTMLCanvasElement>("canvas");
    if (!stage || !canvas) {
      report();
      return;
    }
    clearInterval(hook);
    applyBody();
    const render = stage.renderer.render.bind(stage.renderer);
    stage.renderer.render = (...a: unknown[]) => {
      render(...a);
      sample(canvas);
    };
  }, 250);
  addEventListener("resize", () => report());

  // ---- the shell ----
  w.__yuiShell = (m) => {
    const s = m as { type?: string; compositor?: boolean };
    if (s?.type === "shell")
      document.body.classList.toggle("desktop-opaque", opaque || s.compositor === false);
    else if (s?.type === "open-input") setInput(true);
  };
  toShell({ type: "hello" });
  report();
}
