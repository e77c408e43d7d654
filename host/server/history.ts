/**
 * Conversation history per preset: `yui.<presetId>.history`, the user's and the character's speech in order,
 * shown again after a reload and rebuilt into the next Chat Completions turn (docs/store.md).
 */
import { z } from "zod";
import { registerKeySchema } from "../store/schema.ts";

/** The newest entries kept per preset; older ones drop off the front. */
export const HISTORY_MAX = 200;

/** One line of a conversation: who spoke, what, and when (epoch ms). */
export const HistoryEntrySchema = z.strictObject({
  role: z.enum(["user", "assistant"]),
  content: z.string().max(100_000),
  at: z.number().int().nonnegative(),
  /** A character that addressed this one (an addressed turn), by name. */
  from: z.string().max(64).optional(),
});

registerKeySchema({
  pattern: "yui.<presetId>.history",
  schema: z.array(HistoryEntrySchema).max(HISTORY_MAX),
  default: [],
  doc: "The preset's conversation: user and character speech, newest last, at most 200 entries.",
});
