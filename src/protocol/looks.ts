/**
 * Which generated character a preset wears when it names no model of its own (docs/avatar.md "The generated
 * characters"): `yui.<presetId>.look`, an index into the generated characters, given by the host.
 */

/** The store key pattern of a preset's look. */
export const LOOK_KEY_PATTERN = "yui.<presetId>.look";

/** The store key of `presetId`'s look. */
export function lookKey(presetId: string): string {
  return `yui.${presetId}.look`;
}
