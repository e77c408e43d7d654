/**
 * Conversation history per preset: `yui.<presetId>.history`, the user's and the character's speech in order,
 * shown again after a reload and rebuilt into the next Chat Completions turn (docs/store.md).
 */
import { z } from "zod";
import { HISTORY_MAX } from "./limits.ts";

/** One line of a conversation: who spoke, what, and when (epoch ms). */
export const HistoryEntrySchema = z.strictObject({
  role: z.enum(["user", "assistant"]),
  content: z.string().max(100_000),
  at: z.number().int().nonnegative(),
  /** A character that addressed this one (an addressed turn), by name. */
  from: z.string().max(64).optional(),
});
export type HistoryEntry = z.infer<typeof HistoryEntrySchema>;

/** The stored conversation: at most HISTORY_MAX entries, newest last. */
export const HistorySchema = z.array(HistoryEntrySchema).max(HISTORY_MAX);

/** The store key of a preset's conversation. */
export function historyKey(presetId: string): string {
  return `yui.${presetId}.history`;
}
