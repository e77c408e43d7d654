import { describe, expect, it } from "vitest";
import { createCommandTable } from "./commands.ts";

describe("the command table", () => {
  it("parses a call's arguments with its command's schema before the handler runs", async () => {
    const table = createCommandTable();
    const seen: unknown[] = [];
    table.register("body_read", async (args) => {
      seen.push(args);
      return null;
    });
    // Keys outside the schema are dropped: the handler gets exactly the contract's arguments.
    await table.invoke("body_read", { at: "body", extra: 1 });
    expect(seen).toEqual([{ at: "body" }]);
    await expect(table.invoke("body_read", { at: "elsewhere" })).rejects.toThrow(/^invalid arguments: /);
    await expect(table.invoke("body_read", null)).rejects.toThrow(/^invalid arguments: /);
    expect(seen).toHaveLength(1);
  });

  it("refuses an unknown command and a second handler for one name", async () => {
    const table = createCommandTable();
    table.register("body_poke", async () => null);
    await expect(table.invoke("teleport", {})).rejects.toThrow("unknown command: teleport");
    expect(() => table.register("body_poke", async () => null)).toThrow(
      "command body_poke is already registered",
    );
    expect(table.names()).toEqual(["body_poke"]);
  });
});
