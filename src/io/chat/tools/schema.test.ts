import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkArgument, declaredParameters, invalidField, keptTo, missingField, oneOf } from "./schema.ts";

describe("declaredParameters", () => {
  it("is zod's JSON Schema of a strict object: no $schema, additionalProperties false, required in shape order", () => {
    const p = declaredParameters(
      z.strictObject({ b: z.string(), a: z.boolean().optional(), c: z.enum(["x", "y"]) }),
    );
    expect(JSON.stringify(p)).toBe(
      '{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"boolean"},"c":{"type":"string","enum":["x","y"]}},"required":["b","c"],"additionalProperties":false}',
    );
  });

  it("drops zod's safe-integer bounds but keeps the bounds a tool sets", () => {
    const p = declaredParameters(
      z.strictObject({ any: z.int(), low: z.int().min(0), both: z.int().min(1).max(9) }),
    );
    expect(p.properties).toEqual({
      any: { type: "integer" },
      low: { type: "integer", minimum: 0 },
      both: { type: "integer", minimum: 1, maximum: 9 },
    });
  });

  it("declares an enum of integers as integer, and keeps a fractional one a number", () => {
    const p = declaredParameters(z.strictObject({ i: z.literal([-1, 2]), f: z.literal([0.5, 1]) }));
    expect(JSON.stringify(p.properties)).toBe(
      '{"i":{"type":"integer","enum":[-1,2]},"f":{"type":"number","enum":[0.5,1]}}',
    );
  });

  it("lists a run-time list in its order, repeats and integer-like strings included, one value as an enum", () => {
    const p = declaredParameters(
      z.strictObject({
        many: oneOf(["b", "10", "2", "b"]).describe("d"),
        one: oneOf(["only"]).describe("d"),
      }),
    );
    expect(JSON.stringify(p.properties)).toBe(
      '{"many":{"type":"string","enum":["b","10","2","b"],"description":"d"},"one":{"type":"string","enum":["only"],"description":"d"}}',
    );
  });

  it("refuses an argument JSON Schema cannot state instead of declaring it as anything", () => {
    expect(() => declaredParameters(z.strictObject({ when: z.date() }))).toThrow();
  });
});

describe("checkArgument", () => {
  const Args = z.strictObject({ need: z.enum(["a", "b"]), maybe: z.int().min(0).optional() });

  it("answers the spec's missing and invalid field strings", () => {
    expect(missingField("x")).toBe("error: missing field x");
    expect(invalidField("x")).toBe("error: invalid field x");
    expect(checkArgument(Args, "need", undefined)).toEqual({ ok: false, error: "error: missing field need" });
    expect(checkArgument(Args, "need", "c")).toEqual({ ok: false, error: "error: invalid field need" });
    expect(checkArgument(Args, "need", null)).toEqual({ ok: false, error: "error: invalid field need" });
    expect(checkArgument(Args, "need", "a")).toEqual({ ok: true, value: "a" });
  });

  it("lets an optional argument be absent unless the call needs it", () => {
    expect(checkArgument(Args, "maybe", undefined)).toEqual({ ok: true, value: undefined });
    expect(checkArgument(Args, "maybe", undefined, true)).toEqual({
      ok: false,
      error: "error: missing field maybe",
    });
    expect(checkArgument(Args, "maybe", -1)).toEqual({ ok: false, error: "error: invalid field maybe" });
    expect(checkArgument(Args, "maybe", 3)).toEqual({ ok: true, value: 3 });
  });
});

describe("keptTo", () => {
  it("is declared with maxLength and keeps the first max characters, counted as code points", () => {
    expect(declaredParameters(z.strictObject({ s: keptTo(3) })).properties).toEqual({
      s: { type: "string", maxLength: 3 },
    });
    expect(keptTo(3).parse("abcdef")).toBe("abc");
    expect(keptTo(3).parse("🙂🙂🙂🙂")).toBe("🙂🙂🙂");
    expect(keptTo(3).safeParse(3).success).toBe(false);
  });
});
