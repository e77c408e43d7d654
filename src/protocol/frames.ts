/**
 * The bridge's frames (docs/app.md#the-bridge-protocol): JSON text frames on one WebSocket per window. Each
 * side parses what the other sends with the schema here.
 */
import { z } from "zod";
import { EVENT_NAME } from "./events.ts";

/** Frames a window sends the host. */
export const WindowFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("invoke"), id: z.number().int(), command: z.string(), args: z.unknown() }),
  z.object({ type: z.literal("cancel"), id: z.number().int() }),
  z.object({ type: z.literal("emit"), name: z.string().regex(EVENT_NAME), payload: z.unknown() }),
]);
export type WindowFrame = z.infer<typeof WindowFrameSchema>;

/** Frames the host sends a window: `hello` first on every connection, then answers and events. */
export const HostFrameSchema = z.union([
  z.object({ type: z.literal("hello"), snapshot: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal("result"), id: z.number().int(), ok: z.literal(true), value: z.unknown() }),
  z.object({ type: z.literal("result"), id: z.number().int(), ok: z.literal(false), error: z.string() }),
  z.object({ type: z.literal("event"), name: z.string(), payload: z.unknown() }),
]);

/** Frames the host sends a window (the type spelled out: `value` and `payload` are always present). */
export type HostFrame =
  | { type: "hello"; snapshot: Record<string, unknown> }
  | { type: "result"; id: number; ok: true; value: unknown }
  | { type: "result"; id: number; ok: false; error: string }
  | { type: "event"; name: string; payload: unknown };
