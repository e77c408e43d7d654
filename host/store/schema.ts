/**
 * The store's key table, as the host checks it: one zod schema and one default per key (or key pattern), from
 * the one explicit list of the host–page contract (`KEY_TABLE`, src/protocol/store-keys.ts). Every write, from
 * the app or from `yui store set`, goes through `validateValue`. Patterns use `<presetId>` for one preset id
 * segment (docs/store.md).
 */
import { PRESET_ID_SOURCE } from "../../src/protocol/preset.ts";
import { KEY_TABLE, type KeySpec } from "../../src/protocol/store-keys.ts";

export type { KeySpec };

interface Entry {
  spec: KeySpec;
  regex: RegExp;
  exact: boolean;
}

const table = new Map<string, Entry>();

/** Thrown for a key outside the table or a value its schema refuses; `message` is shown to the user as is. */
export class StoreError extends Error {
  override name = "StoreError";
}

function patternRegex(pattern: string): RegExp {
  const parts = pattern.split("<presetId>").map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${parts.join(`(${PRESET_ID_SOURCE})`)}$`);
}

/**
 * Adds (or replaces) a key in this process's table. The app's keys are KEY_TABLE's; this is for a test's own
 * keys (`test.counter`), added explicitly by the test.
 */
export function registerKeySchema<T>(spec: KeySpec<T>): void {
  if (!/^[a-z0-9_<>A-Z.-]+$/.test(spec.pattern)) throw new StoreError(`bad key pattern ${spec.pattern}`);
  const exact = !spec.pattern.includes("<presetId>");
  const parsed = spec.schema.safeParse(spec.default);
  if (!parsed.success) throw new StoreError(`default for ${spec.pattern} does not match its schema`);
  table.set(spec.pattern, { spec: spec as KeySpec, regex: patternRegex(spec.pattern), exact });
}

for (const spec of KEY_TABLE) registerKeySchema(spec);

/** The spec governing `key`, exact keys first, else the first matching pattern; undefined when unknown. */
export function keySpec(key: string): KeySpec | undefined {
  const exact = table.get(key);
  if (exact?.exact) return exact.spec;
  for (const e of table.values()) if (!e.exact && e.regex.test(key)) return e.spec;
  return undefined;
}

/** Every registered key or pattern, sorted, for docs and `yui store list --all`. */
export function registeredKeys(): KeySpec[] {
  return [...table.values()].map((e) => e.spec).sort((a, b) => a.pattern.localeCompare(b.pattern));
}

/** Whether a key holds a secret that must never leave the host. */
export function isSecretKey(key: string): boolean {
  return keySpec(key)?.secret === true;
}

/** Checks `value` against its key's schema; returns the parsed value or throws a StoreError naming the problem. */
export function validateValue(key: string, value: unknown): unknown {
  const spec = keySpec(key);
  if (!spec) throw new StoreError(`unknown key ${key}`);
  const parsed = spec.schema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues
      .map((i) => `${i.path.length ? i.path.join(".") : "value"}: ${i.message}`)
      .join("; ");
    throw new StoreError(`invalid value for ${key}: ${issues}`);
  }
  return parsed.data;
}

/** The default for a registered key; undefined for an unknown one. */
export function defaultValue(key: string): unknown {
  const spec = keySpec(key);
  return spec ? structuredClone(spec.default) : undefined;
}
