/**
 * The chat panel's view: its header (name, relation band, status), the log of bubbles, the composer and the
 * stage's box. It draws what it is given and holds no conversation of its own (the session does).
 */
import type { Preset } from "../app/presets/preset.ts";
import type { WindowKind } from "../app/tools/window-tools.ts";
import type { HistoryEntry } from "../protocol/history.ts";
import { h, replace } from "./dom.ts";

export type BubbleRole = "user" | "assistant" | "incoming";

/** What the head shows: the name, and the band toward the user while Relations is on (null when off). */
export interface HeadState {
  name: string;
  band: string | null;
}

export type PanelView = ReturnType<typeof createPanelView>;

/** Builds the panel's elements for one character. */
export function createPanelView(opts: { presetId: string; kind: WindowKind; name: string; stage: boolean }) {
  const { presetId, name } = opts;
  const status = h("span", { class: "status", "data-testid": "status" });
  const band = h("span", { class: "band", "data-testid": "band" });
  const log = h("div", { class: "log", "data-testid": "log", role: "log", "aria-live": "polite" });
  const input = h("textarea", {
    class: "input",
    rows: 1,
    placeholder: `Talk to ${name}…`,
    "aria-label": `Message to ${name}`,
    "data-testid": "input",
  });
  const sendBtn = h("button", { class: "send", type: "submit", "data-testid": "send" }, "Send");
  const stopBtn = h("button", { class: "stop", type: "button", "data-testid": "stop", hidden: true }, "Stop");
  const form = h("form", { class: "composer" }, input, stopBtn, sendBtn);
  const stageBox = h("div", { class: "stage", "data-testid": "stage" });
  const title = h("h2", { class: "name" }, name);
  const el = h(
    "section",
    { class: `panel panel-${opts.kind}`, "data-preset": presetId, "data-testid": `panel-${presetId}` },
    h(
      "header",
      { class: "panel-head" },
      h("div", { class: "avatar-dot" }, name.slice(0, 1)),
      title,
      band,
      status,
    ),
    opts.stage ? stageBox : null,
    log,
    form,
  );

  const scrollDown = () => {
    log.scrollTop = log.scrollHeight;
  };

  /** Appends one bubble; `from` names who an incoming line came from. */
  function bubble(role: BubbleRole, text: string, from?: string): HTMLElement {
    log.querySelector(".empty")?.remove();
    const body = h("div", { class: "text" }, text);
    const b = h(
      "div",
      { class: `msg ${role}`, "data-role": role },
      from ? h("div", { class: "from" }, from) : null,
      body,
    );
    log.append(b);
    scrollDown();
    return b;
  }

  /** A line for a step that failed outside a turn (storing the history, claiming an event). */
  function failure(e: unknown): void {
    bubble("assistant", (e as Error)?.message ?? String(e)).classList.add("error");
  }

  /** Redraws the log from the history; a first run says where the words will go, and where to change it. */
  function renderHistory(entries: HistoryEntry[], preset: Preset | null | undefined, who: string): void {
    replace(log);
    if (!entries.length) {
      const b = preset?.backend;
      const where = b?.transport === "push" ? b.push_url : b?.base_url;
      log.append(
        h(
          "div",
          { class: "empty" },
          h("p", {}, `Say hello to ${who}.`),
          h(
            "small",
            {},
            `${who} talks through ${where ?? "no backend yet"}${b?.model ? ` (${b.model})` : ""}. `,
            h("a", { href: "?view=settings" }, "Change it in Settings"),
          ),
        ),
      );
    }
    for (const e of entries) bubble(e.from ? "incoming" : e.role, e.content, e.from);
  }

  function renderHead(head: HeadState): void {
    title.textContent = head.name;
    band.textContent = head.band ?? "";
    band.className = `band band-${head.band ?? "off"}`;
    band.title = head.band ? `${head.name} feels ${head.band} toward you` : "";
  }

  /** Send disabled and Stop shown while a turn runs (Stop also while the voice still speaks). */
  function setBusy(busy: boolean, speaking: boolean): void {
    stopBtn.hidden = !(busy || speaking);
    sendBtn.disabled = busy;
    el.classList.toggle("busy", busy);
  }

  return {
    el,
    log,
    input,
    form,
    stopBtn,
    status,
    stageBox,
    bubble,
    failure,
    renderHistory,
    renderHead,
    setBusy,
    scrollDown,
  };
}
