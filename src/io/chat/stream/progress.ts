import type { EngineEvent } from "./types.ts";

const DONE_STATES = new Set(["completed", "complete", "done", "finished", "failed", "error", "cancelled"]);

/**
 * Maps a Hermes `hermes.tool.progress` telemetry payload to backend tool status; use on either transport.
 * Returns null when the payload names no tool.
 */
export function hermesProgress(payload: unknown, fallbackId: string): EngineEvent | null {
  if (!payload || typeof payload !== "object") return null;
  const p = payload as Record<string, unknown>;
  const name = [p.name, p.tool, p.tool_name, p.label].find((v) => typeof v === "string" && v) as
    | string
    | undefined;
  if (!name) return null;
  const id = typeof p.tool_call_id === "string" && p.tool_call_id ? p.tool_call_id : fallbackId;
  const status = typeof p.status === "string" && DONE_STATES.has(p.status.toLowerCase()) ? "done" : "running";
  return { type: "tool_status", call_id: id, name, status };
}
