import { describe, expect, it } from "vitest";
import { bodyTimings } from "./desktop-cli.ts";

describe("YUI_BODY_TIMINGS", () => {
  it("is optional, and takes any of the body's timings as positive numbers", () => {
    expect(bodyTimings(undefined)).toBeUndefined();
    expect(bodyTimings("")).toBeUndefined();
    expect(bodyTimings('{"walkPxPerS":700,"bedSetupMs":2500,"wakeMs":1}')).toEqual({
      walkPxPerS: 700,
      bedSetupMs: 2500,
      wakeMs: 1,
    });
  });
  it.each([
    ["not JSON", "{walk", "YUI_BODY_TIMINGS must be a JSON object"],
    ["an array", "[1]", "YUI_BODY_TIMINGS must be a JSON object"],
    ["null", "null", "YUI_BODY_TIMINGS must be a JSON object"],
    ["an unknown field", '{"runPxPerS":9}', "YUI_BODY_TIMINGS: unknown field runPxPerS"],
    ["zero", '{"lieDownMs":0}', "YUI_BODY_TIMINGS: lieDownMs must be a positive number"],
    ["a string", '{"wakeMs":"22000"}', "YUI_BODY_TIMINGS: wakeMs must be a positive number"],
  ])("refuses %s with a message naming it", (_n, raw, message) => {
    expect(() => bodyTimings(raw)).toThrow(new Error(message));
  });
});
