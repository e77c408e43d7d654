/**
 * For tests: the stand-in ego-browser in a sandbox, the real host commands mounted on an in-process bridge, the
 * renderer's relay over it, and the browser tool over the relay.
 */

import { afterEach } from "vitest";
import { type BrowserInvoke, createBrowserRelay } from "../../src/io/browser/browser-relay.ts";
import { createBrowserTool } from "../../src/io/browser/browser-tool.ts";
import type { ClientTool, ToolResult } from "../../src/io/chat/tools/client-tools.ts";
import { installStandin, type Standin } from "../../tools/ego-browser-standin/install.ts";
import { BackstopKills } from "./backstop-kills.ts";
import {
  type BrowserHostConfig,
  browserHostConfig,
  type CommandHandler,
  registerBrowserCommands,
} from "./commands.ts";
import { SpaceLocks } from "./space-lock.ts";

/** Scaled-down timings that a normal test run never reaches on a loaded machine. */
export const TEST_TIMINGS = { deadlineMs: 10_000, backstopMs: 15_000, waitMs: 20_000 } as const;

export interface BrowserHarness {
  standin: Standin;
  config: BrowserHostConfig;
  invoke: BrowserInvoke;
  /** How many commands reached the host. */
  invocations: () => number;
  tool(presetId?: string): ClientTool;
  setSwitch(on: boolean): void;
  /** Runs the tool once as a turn would. */
  call(
    args: Record<string, unknown>,
    opts?: { presetId?: string; signal?: AbortSignal },
  ): Promise<ToolResult>;
  remove(): Promise<void>;
}

/** Sets up a sandbox; config and waitMs override the test timings, where/env go to the stand-in. */
export async function browserHarness(
  opts: {
    where?: "home" | "path" | "none";
    env?: Record<string, string>;
    config?: Partial<BrowserHostConfig>;
    waitMs?: number;
  } = {},
): Promise<BrowserHarness> {
  const standin = await installStandin({ where: opts.where ?? "home", env: opts.env ?? {} });
  const config = browserHostConfig({
    deadlineMs: TEST_TIMINGS.deadlineMs,
    backstopMs: TEST_TIMINGS.backstopMs,
    graceMs: 300,
    env: standin.env,
    tmpDir: standin.tmp,
    locks: new SpaceLocks(),
    kills: new BackstopKills(),
    ...opts.config,
  });
  const handlers = new Map<string, CommandHandler>();
  // The switch on: these harnesses test what runs; the host's switch check is host/server/switches.test.ts's.
  await registerBrowserCommands(
    (name, handler) => handlers.set(name, handler),
    () => true,
    config,
  );
  let count = 0;
  // The bridge carries JSON: results cross it as a copy, as they would between processes.
  const invoke: BrowserInvoke = async (command, args, invokeOpts) => {
    count += 1;
    const handler = handlers.get(command);
    if (!handler) throw new Error(`unknown command ${command}`);
    return JSON.parse(JSON.stringify(await handler(JSON.parse(JSON.stringify(args)), invokeOpts)));
  };
  const relay = createBrowserRelay(invoke, { waitMs: opts.waitMs ?? TEST_TIMINGS.waitMs });
  let on = true;
  const tool = (presetId = "alice") => createBrowserTool({ readSwitch: async () => on, presetId, relay });
  return {
    standin,
    config,
    invoke,
    invocations: () => count,
    tool,
    setSwitch: (value) => {
      on = value;
    },
    call: (args, callOpts = {}) =>
      tool(callOpts.presetId).run(args, {
        signal: callOpts.signal ?? new AbortController().signal,
        turnId: "turn-1",
        presetId: callOpts.presetId ?? "alice",
      }),
    remove: () => standin.remove(),
  };
}

/** Polls until check returns a value (not undefined), or fails after timeoutMs. */
export async function waitFor<T>(check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error("waitFor: gave up");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** For a test file: returns a harness maker whose sandboxes are removed after each test. */
export function harnessPerTest(): (opts?: Parameters<typeof browserHarness>[0]) => Promise<BrowserHarness> {
  const open: BrowserHarness[] = [];
  afterEach(async () => {
    await Promise.all(open.splice(0).map((h) => h.remove()));
  });
  return async (opts = {}) => {
    const h = await browserHarness(opts);
    open.push(h);
    return h;
  };
}
