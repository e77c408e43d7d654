/**
 * A cue (client-tools.md, "cue contract"): the expression placed on the speech around it. generate_express's
 * arguments are one; a push segment carries them with their position; the stage and the voice play them.
 */
import { z } from "zod";

/** A cue's fields, every one optional; unknown fields are kept for whoever reads them. */
export const CueSchema = z.looseObject({
  emotion_id: z.string().optional(),
  motion_id: z.string().optional(),
  emotion_text: z.string().optional(),
  caption: z.string().optional(),
});
/** A cue as generate_express delivers it (every field optional). */
export type Cue = z.infer<typeof CueSchema>;
