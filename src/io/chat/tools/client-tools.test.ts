import { describe, expect, it } from "vitest";
import type { ClientTool } from "./client-tools.ts";

describe("ClientTool", () => {
  it("a tool answers through run", async () => {
    const tool: ClientTool = {
      name: "echo",
      description: "echo",
      parameters: { type: "object", properties: {}, additionalProperties: false },
      run: async () => "ok",
    };
    const ac = new AbortController();
    expect(await tool.run({}, { signal: ac.signal, turnId: "t1", presetId: "p" })).toBe("ok");
  });
});
