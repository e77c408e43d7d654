/**
 * Her doze on this device (`yui.doze`, docs/avatar.md "Dozing"): how long nothing may concern a character before
 * she dozes (her stage stops drawing), or never. One setting for every character window of this device.
 */
import { z } from "zod";

/** The store key of the doze delay. */
export const DOZE_KEY = "yui.doze";

/** `{ delay_s }`: seconds (1 to a day) with nothing that concerns her before she dozes, or "never". */
export const DozeSettingsSchema = z.strictObject({
  delay_s: z.union([z.int().min(1).max(86_400), z.literal("never")]),
});
export type DozeSettings = z.infer<typeof DozeSettingsSchema>;
/** Three minutes. */
export const DEFAULT_DOZE_SETTINGS: DozeSettings = { delay_s: 180 };

/** The delays Settings and quick controls offer, in seconds ("never" besides). */
export const DOZE_CHOICES = [60, 180, 600, 1800] as const;

/** The stored doze delay in seconds, or null for never (the default when unset or not valid). */
export function dozeDelayOf(kv: { get(key: string): unknown }): number | null {
  const r = DozeSettingsSchema.safeParse(kv.get(DOZE_KEY));
  const s = r.success ? r.data : DEFAULT_DOZE_SETTINGS;
  return s.delay_s === "never" ? null : s.delay_s;
}
