/**
 * One source per tool for what the model is offered and what a call is checked against (spec: client-tools.md,
 * "Declared schema"): each tool writes its arguments once, as a zod strict object, and this module turns that
 * object into the declared `parameters` (zod 4's JSON Schema output) and checks a call's arguments with it.
 *
 * The JSON Schema output is adjusted here, and only here, where zod's output differs from what the tools declare:
 * - no `$schema` key: `parameters` is a schema object inside a tool declaration, not a document;
 * - an integer carries only the bounds the tool set: zod's safe-integer bounds (±2^53-1) are dropped;
 * - an enum of integers is declared `type: "integer"` (zod writes `number` for numeric literals);
 * - a one-value enum stays `enum: [value]` (zod writes `const`), so a list never changes shape with its length;
 * - a length in characters is keptTo's `maxLength` (zod's .max() counts UTF-16 units, not characters).
 */
import { z } from "zod";
import type { JsonSchema } from "./client-tools.ts";

/** A tool's arguments: a strict object, so the declared schema says `additionalProperties: false`. */
export type ToolArgs = z.ZodObject<z.ZodRawShape, z.core.$strict>;

/**
 * One of the listed strings, in the listed order. A list read at run time (ids, names) goes through here and
 * not through z.enum, which reorders integer-like strings ("10" before "a") and drops repeats.
 */
export function oneOf(values: readonly string[]): z.ZodLiteral<string> {
  return z.literal(values);
}

/**
 * A string declared with `maxLength: max` whose check keeps its first `max` characters. Characters are code points,
 * as JSON Schema's maxLength counts them (zod's .max() counts UTF-16 units, so 80 emoji would be 160).
 */
export function keptTo(max: number) {
  return z
    .string()
    .overwrite((s) => [...s].slice(0, max).join(""))
    .meta({ maxLength: max });
}

const SAFE = Number.MAX_SAFE_INTEGER;

function declared(ctx: { jsonSchema: Record<string, unknown> }): void {
  const json = ctx.jsonSchema;
  if (json.type === "integer") {
    if (json.minimum === -SAFE) delete json.minimum;
    if (json.maximum === SAFE) delete json.maximum;
  }
  if (json.type === "number" && Array.isArray(json.enum) && json.enum.every(Number.isInteger)) {
    json.type = "integer";
  }
  if ("const" in json) {
    // Rebuilt in place so `enum` takes the position `const` had (key order is part of the bytes sent).
    const entries = Object.entries(json);
    for (const [k] of entries) delete json[k];
    for (const [k, v] of entries) json[k === "const" ? "enum" : k] = k === "const" ? [v] : v;
  }
}

/** The `parameters` a tool declares (OpenAI function schema), generated from its arguments schema. */
export function declaredParameters(args: ToolArgs): JsonSchema {
  const { $schema: _, ...parameters } = z.toJSONSchema(args, {
    target: "draft-2020-12",
    io: "input",
    unrepresentable: "throw",
    override: declared,
  });
  return parameters;
}

/** The spec's answers for an argument that is absent, or that does not fit its declared schema. */
export const missingField = (name: string) => `error: missing field ${name}`;
export const invalidField = (name: string) => `error: invalid field ${name}`;

export type ArgumentCheck<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Checks one argument against its declared schema: absent (`undefined`) where the call needs it answers
 * `error: missing field <name>`, a value that does not fit answers `error: invalid field <name>`. `needed`
 * defaults to what the schema declares; a tool whose needs depend on another argument (body_action) says it.
 */
export function checkArgument<S extends ToolArgs, K extends keyof S["shape"] & string>(
  args: S,
  name: K,
  value: unknown,
  needed?: boolean,
): ArgumentCheck<z.output<S["shape"][K]>> {
  const field = args.shape[name] as z.ZodType<z.output<S["shape"][K]>>;
  if (value === undefined && (needed ?? !field.safeParse(undefined).success)) {
    return { ok: false, error: missingField(name) };
  }
  const parsed = field.safeParse(value);
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, error: invalidField(name) };
}
