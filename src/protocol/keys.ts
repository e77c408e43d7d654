/**
 * A stored API key bound to its destination (docs/store.md, docs/app.md "Security model"): the backend key
 * (`yui.<presetId>.api_key`) and the voice key (`yui.<presetId>.voice_api_key`) are kept with the origins they
 * were saved for, and the host sends a key only to those. A plain string is a key not bound yet (written before
 * keys were bound, or by `yui store set`): the host binds it, on sight, to where its preset points then.
 */
import { z } from "zod";

/** A key with the origins (`scheme://host:port`) it may be sent to. */
export const BoundKeySchema = z.strictObject({
  key: z.string().min(1).max(4096),
  origins: z.array(z.string().min(1).max(2048)).min(1).max(4),
});
export type BoundKey = z.infer<typeof BoundKeySchema>;

/** What a key's store row holds: bound, or a plain string not bound yet. */
export const StoredKeySchema = z.union([z.string().max(4096), BoundKeySchema]);

/** The origin of an http(s) or ws(s) URL (default ports dropped), or undefined for anything else. */
export function urlOrigin(url: string | undefined): string | undefined {
  if (!url) return undefined;
  try {
    const u = new URL(url);
    return ["http:", "https:", "ws:", "wss:"].includes(u.protocol) ? `${u.protocol}//${u.host}` : undefined;
  } catch {
    return undefined;
  }
}

/** The origins a preset's backend key is saved for: its base URL's and push URL's, as they are now. */
export function backendKeyOrigins(backend: { base_url?: string; push_url?: string }): string[] {
  const origins = [backend.base_url, backend.push_url].map(urlOrigin);
  return [...new Set(origins.filter((o): o is string => !!o))];
}

/** Whether a stored key value holds a key (bound or not). */
export function hasKey(stored: unknown): boolean {
  const parsed = StoredKeySchema.safeParse(stored);
  return parsed.success && (typeof parsed.data === "string" ? parsed.data !== "" : true);
}
