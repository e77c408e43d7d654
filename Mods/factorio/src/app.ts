import { serveMcp } from "@yui/mod-kit";
import { Bridge } from "./bridge.ts";
import { type Clock, realClock } from "./clock.ts";
import { type FactorioConfig, readRconEndpoint } from "./config.ts";
import { Doorbell, type WakeGroup } from "./doorbell.ts";
import { JsonlOutcomeLog } from "./outcome-log.ts";
import { POLL_INTERVAL_MS, startPoller } from "./poller.ts";
import { RconLink } from "./rcon/link.ts";
import { buildServer, MOD_NAME, MOD_VERSION } from "./server.ts";

/** The Mod's timings in ms; time_scale scales the poll, the backoffs and the reminder, not the timeouts. */
export const TIMINGS = {
  poll: POLL_INTERVAL_MS,
  backoffMin: 5_000,
  backoffMax: 300_000,
  remind: 300_000,
  rconConnect: 5_000,
  rconReply: 10_000,
  signalsTimeout: 10_000,
  reconnectMin: 1_000,
  reconnectMax: 30_000,
} as const;

export type RunningMod = { url: string; port: number; bridge: Bridge; close(): Promise<void> };

/** Posts one wake group as JSON and answers the HTTP status (throws when no response came). */
export function postTo(url: string, timeoutMs: number): (group: WakeGroup) => Promise<number> {
  return async (group) => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(group),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.arrayBuffer().catch(() => undefined);
    return res.status;
  };
}

/** Starts the whole Mod from a config: RCON link, bridge, poller, doorbell, MCP server on 127.0.0.1:port. */
export async function startMod(
  config: FactorioConfig,
  port: number,
  opts: { clock?: Clock; log?: (line: string) => void } = {},
): Promise<RunningMod> {
  const clock = opts.clock ?? realClock;
  const say = opts.log ?? ((line: string) => process.stderr.write(`[factorio] ${line}\n`));
  const s = (ms: number) => Math.max(1, Math.round(ms * config.timeScale));
  const link = new RconLink({
    endpoint: () => readRconEndpoint(config.configIni),
    // Timeouts are not spec timings: a slow machine must not turn a late reply into a lost one.
    connectMs: TIMINGS.rconConnect,
    replyMs: TIMINGS.rconReply,
    backoffMinMs: s(TIMINGS.reconnectMin),
    backoffMaxMs: s(TIMINGS.reconnectMax),
    now: clock.now,
  });
  const log = new JsonlOutcomeLog(config.outcomeLog);
  let doorbell: Doorbell | undefined;
  const bridge = new Bridge({ rcon: link, wakeKinds: config.wakeKinds, log, ring: () => doorbell?.ring() });
  if (config.signalsUrl) {
    doorbell = new Doorbell(
      bridge,
      postTo(config.signalsUrl, TIMINGS.signalsTimeout),
      {
        coalesceMs: config.coalesceMs,
        backoffMinMs: s(TIMINGS.backoffMin),
        backoffMaxMs: s(TIMINGS.backoffMax),
        remindMs: s(TIMINGS.remind),
      },
      clock,
      (o) =>
        log.write([
          {
            type: "wake_post",
            status: o.status,
            reminder: o.reminder,
            group: o.group,
            ...(o.error ? { error: o.error } : {}),
          },
        ]),
    );
  }
  const poller = startPoller(
    () => bridge.pollOnce(),
    s(TIMINGS.poll),
    clock,
    (m) => say(`poll: ${m}`),
  );
  const stopAll = () => {
    poller.stop();
    doorbell?.close();
    link.close();
  };
  let served: Awaited<ReturnType<typeof serveMcp>>;
  try {
    served = await serveMcp({ name: MOD_NAME, version: MOD_VERSION, port, build: () => buildServer(bridge) });
  } catch (err) {
    // A taken port: nothing of the Mod may keep running (or keep the process alive) behind the error.
    stopAll();
    throw err;
  }
  return {
    url: served.url,
    port: served.port,
    bridge,
    async close() {
      stopAll();
      await served.close();
    },
  };
}
