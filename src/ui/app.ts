/**
 * The browser build's entry: connects the bridge, mirrors the store and shows one view, chosen by `?view=`:
 * main (the characters' chat), settings, quick (quick controls), phone (chat only) or desktop (one character's
 * window in the desktop app). `&app=desktop` marks the desktop app's own pages (Chat, Settings, Quick controls):
 * they keep the mark in their tabs and have no Phone tab (the phone is the browser build's, docs/app.md).
 */
import { SESSION_PATH } from "../protocol/limits.ts";
import { connectBridge } from "./bridge-client.ts";
import { mountDesktop } from "./desktop-view.ts";
import { h, replace } from "./dom.ts";
import { SIGNED_OUT } from "./errors.ts";
import { mountMain } from "./main-view.ts";
import { mountPhone } from "./phone-view.ts";
import { mountQuick } from "./quick-view.ts";
import { mountSettings } from "./settings-view.ts";
import { createStoreMirror } from "./store-mirror.ts";
import { DESKTOP_APP_PARAM, inDesktopApp, tabsFor, type View } from "./tabs.ts";

const root = document.getElementById("app")!;
const params = new URLSearchParams(location.search);
const desktopApp = inDesktopApp(params);
const tabs = tabsFor(desktopApp);
const raw = params.get("view") ?? "main";
// `desktop`: a character's own window in the desktop app (desktop-view.ts, docs/desktop.md), no navigation.
const view: View | "desktop" = raw === "desktop" ? "desktop" : raw in tabs ? (raw as View) : "main";
document.body.dataset.view = view;

const toastBox = h("div", { class: "toasts", role: "status" });
function toast(message: string): void {
  const t = h("div", { class: "toast", "data-testid": "toast" }, message);
  toastBox.append(t);
  setTimeout(() => t.remove(), 6000);
}

const bridge = connectBridge();
const kv = createStoreMirror(bridge, (m) => toast(`Not saved: ${m}`));
const dot = h("span", { class: "conn", "data-testid": "connection", title: "connection to the YUI host" });
let toldSignedOut = false;
bridge.onState((s) => {
  dot.dataset.state = s;
  dot.textContent = s === "open" ? "connected" : s === "connecting" ? "connecting…" : "host offline";
  // The bridge cannot say why it was refused; the session route can: a host that is up but does not know us.
  if (s === "closed")
    void fetch(SESSION_PATH, { cache: "no-store" })
      .then((r) => {
        if (r.status !== 401 || dot.dataset.state !== "closed") return;
        dot.dataset.state = "signed-out";
        dot.textContent = "not signed in";
        if (!document.body.dataset.ready)
          replace(content, h("p", { class: "signed-out", "data-testid": "signed-out" }, SIGNED_OUT));
        else if (!toldSignedOut) toast(SIGNED_OUT);
        toldSignedOut = true;
      })
      .catch(() => {});
});

// The desktop app's pages keep their mark when the user moves between tabs.
const suffix = desktopApp ? `&${DESKTOP_APP_PARAM}=desktop` : "";
const nav = h(
  "nav",
  { class: "topbar" },
  h("a", { class: "brand", href: `?view=main${suffix}` }, h("span", { class: "logo" }, "✿"), "YUI"),
  h(
    "div",
    { class: "tabs" },
    ...(Object.keys(tabs) as View[]).map((v) =>
      h(
        "a",
        {
          href: `?view=${v}${suffix}`,
          class: v === view ? "tab active" : "tab",
          "aria-current": v === view ? "page" : null,
        },
        tabs[v],
      ),
    ),
  ),
  dot,
);
const content = h("main", { class: `view view-${view}` }, h("p", { class: "loading" }, "Connecting to YUI…"));
replace(root, ...(view === "desktop" ? [] : [nav]), content, toastBox);

await bridge.ready;
const mount = {
  main: mountMain,
  settings: mountSettings,
  quick: mountQuick,
  phone: mountPhone,
  desktop: mountDesktop,
}[view];
replace(content);
mount(content, { bridge, kv, toast, desktopApp });
document.body.dataset.ready = "true";
