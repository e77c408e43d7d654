import { describe, expect, it } from "vitest";
import type { KeyValue } from "../presets/presets.ts";
import { loadRelations, relationLineFor, relationsEnabled, towardChoices } from "./access.ts";

// A plain in-memory key-value: the access functions need only get and set.
function memoryKv(init: Record<string, unknown> = {}): KeyValue & { data: Map<string, unknown> } {
  const data = new Map(Object.entries(init));
  return { data, get: (k) => data.get(k), set: (k, v) => void data.set(k, v) };
}

const OPEN = [
  { id: "mika", name: "Mika" },
  { id: "aoi", name: "Aoi" },
  { id: "u2", name: "user" },
];

describe("relations access", () => {
  it("builds toward as user then the other open presets, a preset named user as user (character)", () => {
    expect(towardChoices(OPEN, "mika")).toEqual([
      { label: "user", id: "user" },
      { label: "Aoi", id: "aoi" },
      { label: "user (character)", id: "u2" },
    ]);
  });

  it("tells two open presets of one name apart by id", () => {
    const open = [...OPEN, { id: "aoi2", name: "Aoi" }];
    expect(towardChoices(open, "mika").map((c) => c.label)).toEqual([
      "user",
      "Aoi (aoi)",
      "user (character)",
      "Aoi (aoi2)",
    ]);
  });

  it("renders the turn's relation: line from the stored values, and none while the switch is off", () => {
    const kv = memoryKv({ "yui.mika.relations": { values: { user: 12, aoi: -4 }, log: [], spent: {} } });
    expect(relationLineFor(kv, "mika", OPEN)).toBe(
      "relation: user close, Aoi cold, user (character) neutral",
    );
    kv.set("yui.relations", { enabled: false });
    expect(relationsEnabled(kv)).toBe(false);
    expect(relationLineFor(kv, "mika", OPEN)).toBeNull();
  });

  it("reads an unreadable stored state as a fresh one", () => {
    const kv = memoryKv({ "yui.mika.relations": { values: { user: "high" } } });
    expect(loadRelations(kv, "mika")).toEqual({ values: {}, log: [], spent: {} });
    expect(relationsEnabled(memoryKv())).toBe(true);
  });
});
