/** The push transport's frames (docs/push-transport.md), validated on arrival. */
import { z } from "zod";
import { CueSchema } from "../../../protocol/cue.ts";

export const PUSH_PROTOCOL_VERSION = 1;

// A segment's cue: a cue (the contract's) and where in the segment's text it plays.
const cueSchema = CueSchema.extend({ at: z.unknown().optional() });

const turnId = z.string().min(1);

/** Frames the backend sends. */
export const backendFrames = {
  welcome: z.looseObject({ type: z.literal("welcome"), v: z.number() }),
  segment: z.looseObject({
    type: z.literal("segment"),
    turn_id: turnId,
    kind: z.enum(["speech", "render"]).optional(),
    text: z.string(),
    cues: z.array(cueSchema).optional(),
  }),
  tool_call: z.looseObject({
    type: z.literal("tool_call"),
    turn_id: turnId,
    call_id: z.string().min(1),
    name: z.string().min(1),
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
  }),
  tool_status: z.looseObject({
    type: z.literal("tool_status"),
    turn_id: turnId,
    call_id: z.string().min(1),
    name: z.string().min(1),
    status: z.enum(["running", "done"]),
  }),
  turn_end: z.looseObject({
    type: z.literal("turn_end"),
    turn_id: turnId,
    outcome: z.enum(["spoken", "silent", "error"]),
    error: z.string().optional(),
  }),
  error: z.looseObject({
    type: z.literal("error"),
    code: z.string(),
    message: z.string().optional(),
    turn_id: z.string().optional(),
  }),
} as const;

export type BackendFrameType = keyof typeof backendFrames;
export type SegmentFrame = z.infer<typeof backendFrames.segment>;
export type ToolCallFrame = z.infer<typeof backendFrames.tool_call>;
/** A cue in a segment, with its position (`at`, in code points of the segment's text). */
export type SegmentCue = z.infer<typeof cueSchema>;

/** What the client sends: hello, turn, tool_result, stop, error. */
export type ClientFrame =
  | {
      type: "hello";
      v: number;
      client: { name: string; version: string };
      preset: { id: string; name: string };
      window: string;
      tools: { name: string; description: string; parameters: Record<string, unknown>; wait_ms: number }[];
    }
  | { type: "turn"; turn_id: string; origin: "user" | "addressed" | "signal"; text: string; context: string }
  | { type: "tool_result"; turn_id: string; call_id: string; result: string; images?: string[] }
  | { type: "stop"; turn_id: string }
  | { type: "error"; code: string; message: string; turn_id?: string };

/** Parses a frame from the backend: the typed frame, null for an unknown type, or a bad_frame message. */
export function parseBackendFrame(
  text: string,
):
  | { ok: true; frame: { [K in BackendFrameType]: z.infer<(typeof backendFrames)[K]> }[BackendFrameType] }
  | { ok: true; frame: null }
  | { ok: false; error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, error: `not JSON: ${(e as Error).message}` };
  }
  if (
    !raw ||
    typeof raw !== "object" ||
    Array.isArray(raw) ||
    typeof (raw as { type?: unknown }).type !== "string"
  ) {
    return { ok: false, error: "a frame is a JSON object with a string type" };
  }
  const type = (raw as { type: string }).type;
  if (!(type in backendFrames)) return { ok: true, frame: null };
  const r = backendFrames[type as BackendFrameType].safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    return { ok: false, error: `${type}: field ${issue.path.join(".") || "(frame)"}: ${issue.message}` };
  }
  return { ok: true, frame: r.data as never };
}
