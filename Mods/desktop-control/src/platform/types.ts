// The one interface both desktops implement; the tools and the witness recorder only see this.

/** The frontmost app and its front window's title; title is null when it has no (named) front window. */
export interface FrontWindow {
  app: string | null;
  title: string | null;
}

/** One display's pixels: a PNG of that display, or of the whole screen with the display's region in it. */
export interface DisplayCapture {
  png: Buffer;
  region?: { x: number; y: number; width: number; height: number };
}

/** A desktop backend (Linux X11 or macOS). Methods throw ToolError with a message the agent can act on. */
export interface Platform {
  /** One capture per display, full resolution, in the system's display order. */
  captureDisplays(): Promise<DisplayCapture[]>;
  /** Names of the visible (non-background) apps. */
  runningApps(): Promise<string[]>;
  /** The frontmost app and window title. */
  frontWindow(): Promise<FrontWindow>;
  /** Milliseconds since the user's last keyboard or pointer input. */
  idleMs(): Promise<number>;
  /** Launches (or brings forward) an already-authorized app and focuses it; returns the result text. */
  openApp(name: string): Promise<string>;
  /** Asks an already-authorized app to quit gracefully; returns the result text. */
  closeApp(name: string): Promise<string>;
  /** Startup checks as [setup] lines; never prompts the user. */
  preflight(): Promise<string[]>;
}
