import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseIni } from "ini";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { CONFIG_MESSAGES } from "./messages.ts";
import type { RconEndpoint } from "./rcon/client.ts";

/** Every event kind the game mod can emit (docs/coop-rpc.md). */
export const EVENT_KINDS = [
  "chat",
  "queue_idle",
  "job_failed",
  "job_done",
  "stopped",
  "body_died",
  "body_respawned",
  "player_died",
  "rocket_launched",
  "research_finished",
  "attack_started",
  "attack_ended",
  "idle_changed",
  "player_joined",
  "player_left",
  "snapshot_summary",
  "body_threat",
  "body_damaged",
] as const;

/** The spec's default wake kinds; every other kind is opt-in. */
export const DEFAULT_WAKE_KINDS = [
  "chat",
  "queue_idle",
  "job_failed",
  "stopped",
  "body_died",
  "player_died",
  "rocket_launched",
] as const;

export const DEFAULT_SIGNALS_URL = "http://127.0.0.1:8770/signals";
export const DEFAULT_COALESCE_MS = 1500;

export type FactorioConfig = {
  configIni: string;
  signalsUrl: string | null;
  outcomeLog: string;
  wakeKinds: Set<string>;
  coalesceMs: number;
  /** Multiplies the spec's fixed timings (1 s poll, 5..300 s backoff, 300 s reminder); 1 in production. */
  timeScale: number;
};

const TomlSchema = z
  .object({
    config_ini: z.string().min(1).optional(),
    signals_url: z.string().optional(),
    outcome_log: z.string().min(1).optional(),
    time_scale: z.number().positive().max(10).optional(),
    wake: z
      .object({
        kinds: z.array(z.enum(EVENT_KINDS)).optional(),
        coalesce_ms: z.number().int().min(0).max(600_000).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

/** Where Factorio keeps config.ini on this platform (the write-data directory). */
export function defaultConfigIni(platform = process.platform, home = os.homedir()): string {
  if (platform === "darwin") return path.join(home, "Library/Application Support/factorio/config/config.ini");
  if (platform === "win32") {
    return path.join(process.env.APPDATA ?? path.join(home, "AppData/Roaming"), "Factorio/config/config.ini");
  }
  return path.join(home, ".factorio/config/config.ini");
}

/** The config.toml in force: FACTORIO_CONFIG_TOML, else the one beside this package. */
export function configTomlPath(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.FACTORIO_CONFIG_TOML;
  if (fromEnv) return path.resolve(fromEnv);
  return fileURLToPath(new URL("../config.toml", import.meta.url));
}

function expand(p: string, baseDir: string): string {
  const home = p === "~" || p.startsWith("~/") ? path.join(os.homedir(), p.slice(1)) : p;
  return path.resolve(baseDir, home);
}

/** Reads and validates config.toml; throws an Error with a message naming the file and the field. */
export function loadConfig(tomlPath: string = configTomlPath()): FactorioConfig {
  let text: string;
  try {
    text = readFileSync(tomlPath, "utf8");
  } catch {
    throw new Error(CONFIG_MESSAGES.configTomlMissing(tomlPath));
  }
  let raw: unknown;
  try {
    raw = parseToml(text);
  } catch (err) {
    throw new Error(CONFIG_MESSAGES.configTomlInvalid(tomlPath, (err as Error).message.split("\n")[0]!));
  }
  const parsed = TomlSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join(".") || "(top level)";
    throw new Error(CONFIG_MESSAGES.configTomlInvalid(tomlPath, `${where}: ${issue.message}`));
  }
  const c = parsed.data;
  const dir = path.dirname(tomlPath);
  const signals = c.signals_url ?? DEFAULT_SIGNALS_URL;
  return {
    configIni: c.config_ini ? expand(c.config_ini, dir) : defaultConfigIni(),
    // An empty signals_url turns the doorbell off; events are still cached and logged.
    signalsUrl: signals === "" ? null : signals,
    outcomeLog: expand(c.outcome_log ?? "outcomes.jsonl", dir),
    wakeKinds: new Set(c.wake?.kinds ?? DEFAULT_WAKE_KINDS),
    coalesceMs: c.wake?.coalesce_ms ?? DEFAULT_COALESCE_MS,
    timeScale: c.time_scale ?? 1,
  };
}

/** Parses local-rcon-socket (HOST:PORT, [v6]:PORT or PORT); a wildcard host means this machine. */
function parseSocket(value: string, iniPath: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value) ?? /^()()(\d{1,5})$/.exec(value);
  const port = m ? Number(m[3]) : Number.NaN;
  if (!m || !(port >= 1 && port <= 65535))
    throw new Error(CONFIG_MESSAGES.configIniBadSocket(value, iniPath));
  const host = (m[1] ?? m[2] ?? "").trim();
  // RCON listening on every interface is still reached through loopback from this machine.
  const wildcard = host === "" || host === "0.0.0.0" || host === "::" || host === "*";
  return { host: wildcard ? "127.0.0.1" : host, port };
}

/** Reads local-rcon-socket and local-rcon-password from Factorio's config.ini [other]; never writes it. */
export function readRconEndpoint(iniPath: string): RconEndpoint {
  let text: string;
  try {
    text = readFileSync(iniPath, "utf8");
  } catch {
    throw new Error(CONFIG_MESSAGES.configIniMissingFile(iniPath));
  }
  const ini = parseIni(text) as Record<string, unknown>;
  const other = (ini.other ?? {}) as Record<string, unknown>;
  const value = (key: string): string => {
    const v = other[key];
    // A commented-out key (;local-rcon-socket=...) is simply absent after parsing.
    if (typeof v !== "string" || v.trim() === "") {
      throw new Error(CONFIG_MESSAGES.configIniMissingKey(key, iniPath));
    }
    return v.trim();
  };
  const { host, port } = parseSocket(value("local-rcon-socket"), iniPath);
  return { host, port, password: value("local-rcon-password") };
}
