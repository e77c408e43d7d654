/**
 * Her body in the desktop view (docs/body.md "In main's page"): main's window holds `body_attach` and lends the
 * host's executor to the panel's body_action and look; the host's `yui://body` events (main) or
 * `yui://occlusion` events (a pet) are played on the stage through its handle, with reduced motion from the
 * system or the Character tab.
 */
import type { StageHandle } from "../avatar/stage.ts";
import { executorOverBridge } from "../io/bridge/body-executor.ts";
import {
  type AvatarExecutor,
  BODY_EVENT,
  type BodyEvent,
  BodyEventSchema,
  BodySettingsSchema,
  bodySettingsKey,
  OCCLUSION_EVENT,
  OcclusionEventSchema,
} from "../protocol/body.ts";
import type { BridgeClient } from "./bridge-client.ts";
import type { ViewContext } from "./context.ts";

/** The host's avatar executor over the bridge (src/io/bridge/body-executor.ts). */
export function bridgeExecutor(bridge: BridgeClient): AvatarExecutor {
  return executorOverBridge(bridge.invoke);
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

/**
 * Plays her body on the stage: for main, the host's body events (posture, cover, the pointer she watches, and the
 * part of her window not to draw) from `link`; for a pet, its `yui://occlusion` cover; for both, reduced motion.
 * Events that come before the stage are kept and applied when `attach` hands it over with the element it fills.
 */
export function followBody(
  ctx: ViewContext,
  presetId: string,
  role: "main" | "pet",
): { link: BodyLink | null; attach(stage: StageHandle, box?: HTMLElement): void; clip(): number } {
  let stage: StageHandle | null = null;
  let box: HTMLElement | null = null;
  // Main's body: her postures from the host's events while this window holds it.
  let body: BodyEvent | null = null;
  // A pet window: whether other windows cover all of it (`yui://occlusion`; main's comes with its body).
  let petCovered = false;
  let gazing = false;
  const apply = () => {
    if (!stage) return;
    stage.setReducedMotion(reducedMotion(ctx.kv, presetId));
    if (role === "pet") stage.setOccluded(petCovered);
    if (!body) return;
    stage.setPosture(body);
    stage.setOccluded(body.occluded);
    // The pointer she watches on her own; when she stops, she looks at the viewer again.
    if (body.gaze) stage.setPointer(body.gaze[0], body.gaze[1]);
    else if (gazing) stage.setPointer(null);
    gazing = Boolean(body.gaze);
    // Hung lower than the edge she is on (her head kept on screen): nothing of her below that edge is drawn.
    if (box) box.style.clipPath = body.clip ? `inset(0 0 ${(body.clip * 100).toFixed(2)}% 0)` : "";
  };
  if (role === "pet")
    followCover(ctx.bridge, presetId, (on) => {
      petCovered = on;
      apply();
    });
  const link =
    role === "main"
      ? linkBody(ctx.bridge, presetId, (ev) => {
          body = ev;
          apply();
        })
      : null;
  if (link) {
    ctx.kv.watch(bodySettingsKey(presetId), apply);
    if (typeof matchMedia === "function")
      matchMedia("(prefers-reduced-motion: reduce)").addEventListener("change", apply);
    addEventListener("pagehide", () => link.dispose());
  }
  return {
    link,
    attach(s, el) {
      stage = s;
      box = el ?? null;
      apply();
    },
    clip: () => body?.clip ?? 0,
  };
}
