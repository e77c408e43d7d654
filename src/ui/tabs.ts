/**
 * The navigation tabs of the app's pages (docs/app.md "The views"). The desktop app opens its own pages
 * (Chat, Settings, Quick controls) with `&app=desktop`: they have no Phone tab, since the phone is the
 * browser build's chat-only page, and their settings speak of the desktop ("Put on desktop").
 */

/** The views, by `?view=` value, with their navigation label. */
export const VIEWS = { main: "Chat", settings: "Settings", quick: "Quick controls", phone: "Phone" } as const;
export type View = keyof typeof VIEWS;

/** The query parameter that marks the desktop app's pages (`app=desktop`). */
export const DESKTOP_APP_PARAM = "app";

/** Whether the page is one of the desktop app's windows. */
export function inDesktopApp(params: URLSearchParams): boolean {
  return params.get(DESKTOP_APP_PARAM) === "desktop";
}

/** The tabs a page shows: every view in the browser build; no Phone in the desktop app. */
export function tabsFor(desktopApp: boolean): Partial<Record<View, string>> {
  if (!desktopApp) return { ...VIEWS };
  const { phone: _phone, ...rest } = VIEWS;
  return rest;
}
