import { describe, expect, it } from "vitest";
import type { KeyValue } from "../presets/presets.ts";
import {
  bandToward,
  loadRelations,
  modifyRelations,
  relationLineFor,
  relationRows,
  relationsEnabled,
  setRelationByUser,
  towardChoices,
} from "./access.ts";

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

  it("sets a value by the user's slider as one logged jump, and answers the band for the quick controls", () => {
    const kv = memoryKv();
    expect(bandToward(kv, "mika")).toBe("neutral");
    const state = setRelationByUser(kv, "mika", "user", 15, 1000);
    expect(state.log).toEqual([
      { at: 1000, target: "user", from: 0, to: 15, why: "set by the user", who: "user" },
    ]);
    expect(kv.data.get("yui.mika.relations")).toEqual(state);
    expect(bandToward(kv, "mika")).toBe("close");
    expect(bandToward(kv, "mika", "aoi")).toBe("neutral");
  });

  it("writes nothing when the change hands back its argument", () => {
    const kv = memoryKv();
    modifyRelations(kv, "mika", (s) => s, "backend");
    expect(kv.data.has("yui.mika.relations")).toBe(false);
  });

  it("lists the settings rows: value, band and the newest changes with their reasons", () => {
    const kv = memoryKv();
    setRelationByUser(kv, "mika", "aoi", -5, 1);
    setRelationByUser(kv, "mika", "aoi", 13, 2);
    setRelationByUser(kv, "mika", "user", 4, 3);
    const rows = relationRows(kv, "mika", OPEN, 1);
    expect(rows.map(({ id, label, value, band }) => ({ id, label, value, band }))).toEqual([
      { id: "user", label: "user", value: 4, band: "warm" },
      { id: "aoi", label: "Aoi", value: 13, band: "close" },
      { id: "u2", label: "user (character)", value: 0, band: "neutral" },
    ]);
    expect(rows[1]!.changes).toEqual([
      { at: 2, target: "aoi", from: -5, to: 13, why: "set by the user", who: "user" },
    ]);
    expect(rows[2]!.changes).toEqual([]);
  });
});
