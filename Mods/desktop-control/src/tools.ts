// The six tools over a Platform, independent of MCP: each returns its result or throws ToolError.
import { type Allowlist, authorize } from "./allowlist.ts";
import { fitLongEdge } from "./image.ts";
import { dayBounds } from "./localtime.ts";
import { msg, ToolError } from "./messages.ts";
import type { FrontWindow, Platform } from "./platform/types.ts";
import { mergeTimeline, type Timeline } from "./timeline.ts";
import { readDay } from "./witness-log.ts";

/** What the tools need besides the platform. */
export interface ToolContext {
  platform: Platform;
  allowlist: Allowlist;
  witnessDir: string;
  retentionDays: number;
  now?: () => Date;
}

/** The desktop-control tools. */
export class DesktopTools {
  constructor(private readonly ctx: ToolContext) {}

  /** One PNG per display, long edge at most 1280 px. */
  async screenshot(): Promise<Buffer[]> {
    const captures = await this.ctx.platform.captureDisplays();
    return Promise.all(captures.map((c) => fitLongEdge(c.png, c.region)));
  }

  /** Names of the visible apps. */
  listRunningApps(): Promise<string[]> {
    return this.ctx.platform.runningApps();
  }

  /** { app, title } of the frontmost window. */
  getFrontmostWindow(): Promise<FrontWindow> {
    return this.ctx.platform.frontWindow();
  }

  /** The day's witness log merged into segments; a missing, unreadable or expired day is empty. */
  async getActivityTimeline(date: string): Promise<Timeline> {
    if (!dayBounds(date)) throw new ToolError(msg.badDate(date));
    const now = this.ctx.now?.() ?? new Date();
    const events = await readDay(this.ctx.witnessDir, date, now, this.ctx.retentionDays);
    return mergeTimeline(date, events, now);
  }

  /** Launches and focuses an allowlisted app. */
  openApp(name: string): Promise<string> {
    return this.ctx.platform.openApp(authorize(this.ctx.allowlist, name));
  }

  /** Gracefully quits an allowlisted app. */
  closeApp(name: string): Promise<string> {
    return this.ctx.platform.closeApp(authorize(this.ctx.allowlist, name));
  }
}
