import { z } from "zod";
import { TOOL_MESSAGES } from "./messages.ts";

// The /coop-rpc protocol as the Mod sees it (docs/coop-rpc.md).

/** Ops that change the game: they carry an idempotency id. */
export const WRITE_OPS = new Set(["say", "ping", "jobs_enqueue", "jobs_cancel", "idle", "stop"]);

// Lua cannot tell {} from [], so an empty result may come as an empty array.
const objectish = z.preprocess(
  (v) => (Array.isArray(v) && v.length === 0 ? {} : v),
  z.record(z.string(), z.unknown()),
);

const ErrorBody = z
  .object({
    code: z.string(),
    message: z.string().optional().default(""),
    field: z.string().optional(),
    oldest_seq: z.number().int().optional(),
    head_seq: z.number().int().optional(),
    map_id: z.string().optional(),
    id: z.string().optional(),
    what: z.string().optional(),
  })
  .passthrough();

export const ReplySchema = z.union([
  z.object({
    ok: z.literal(true),
    map_id: z.string(),
    tick: z.number(),
    result: objectish,
    replayed: z.boolean().optional(),
  }),
  z.object({ ok: z.literal(false), map_id: z.string(), tick: z.number(), error: ErrorBody }),
]);
export type Reply = z.infer<typeof ReplySchema>;

export const EventSchema = z
  .object({ seq: z.number().int().min(1), tick: z.number(), kind: z.string() })
  .passthrough();
export type GameEvent = z.infer<typeof EventSchema>;

export const EventsPageSchema = z.object({
  events: z.preprocess(
    (v) => (v && typeof v === "object" && !Array.isArray(v) ? [] : v),
    z.array(EventSchema),
  ),
  head_seq: z.number().int().min(0),
  oldest_seq: z.number().int().min(0),
  map_id: z.string(),
});

export const StatusSchema = z
  .object({
    version: z.string(),
    map_id: z.string(),
    seq: z.number().int().min(0),
    tick: z.number(),
    queue: z
      .object({ length: z.number().int().min(0) })
      .passthrough()
      .nullish(),
  })
  .passthrough();
export type Status = z.infer<typeof StatusSchema>;

/** Raised when the game's answer is not a /coop-rpc reply (game mod missing, or a broken reply). */
export class NotGameModError extends Error {
  override name = "NotGameModError";
}

/** Builds the console command for one request. */
export function encodeRequest(
  op: string,
  args: Record<string, unknown>,
  id?: string,
  session?: string,
): string {
  const req: Record<string, unknown> = { op };
  if (id !== undefined) req.id = id;
  if (session !== undefined) req.session = session;
  req.args = args;
  return `/coop-rpc ${JSON.stringify(req)}`;
}

/** Parses the game's reply text into a Reply; throws NotGameModError when it is not one. */
export function decodeReply(text: string): Reply {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new NotGameModError(TOOL_MESSAGES.notGameMod);
  }
  const parsed = ReplySchema.safeParse(raw);
  if (!parsed.success) throw new NotGameModError(TOOL_MESSAGES.notGameMod);
  return parsed.data;
}
