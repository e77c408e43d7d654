/**
 * The client context: a short block the client sends with every turn, right before the user's message
 * (docs/client-context.md). Each line is `<name>: <value>`.
 */
import type { ClientTool } from "../../io/chat/tools/client-tools.ts";

export const CLIENT_CONTEXT_HEADER = "[client context]";

/** The `tool switches:` line: the on/off state of every switchable tool the window declares, in declared order. */
export function toolSwitchesLine(
  tools: readonly ClientTool[],
  switches: Readonly<Record<string, boolean>>,
): string | null {
  const ids: string[] = [];
  for (const t of tools) if (t.switchId && !ids.includes(t.switchId)) ids.push(t.switchId);
  if (!ids.length) return null;
  return `tool switches: ${ids.map((id) => `${id}=${switches[id] ? "on" : "off"}`).join(", ")}`;
}

/** The local time line, e.g. `time: 2026-11-30 20:15 Mon (Asia/Tokyo)`. */
export function timeLine(now: Date, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    weekday: "short",
    hourCycle: "h23",
  }).formatToParts(now);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? "";
  return `time: ${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")} ${get("weekday")} (${timeZone})`;
}

/** Joins the context lines into the block; null lines are left out. */
export function buildClientContext(lines: readonly (string | null | undefined)[]): string {
  return [CLIENT_CONTEXT_HEADER, ...lines.filter((l): l is string => !!l)].join("\n");
}
