import { describe, expect, it } from "vitest";
import { DEFAULT_PRESET, type Preset, PresetListSchema, PresetSchema } from "./preset.ts";
import {
  activePresetId,
  characterChoices,
  closePet,
  getPreset,
  type KeyValue,
  listPresets,
  openPet,
  openPetIds,
  openPresets,
  removePreset,
  savePreset,
  setActivePreset,
} from "./presets.ts";

// An in-memory KeyValue that validates like the store does for the preset keys.
function memoryKv(): KeyValue {
  const data = new Map<string, unknown>();
  return {
    get: (k) => data.get(k),
    set: (k, v) => {
      if (k === "yui.presets") PresetListSchema.parse(v);
      data.set(k, structuredClone(v));
    },
  };
}

const preset = (id: string, name: string, extra: Partial<Preset> = {}): Preset => ({
  id,
  name,
  avatar: "",
  voice: "",
  persona: "",
  backend: { transport: "chat" },
  ...extra,
});

describe("presets", () => {
  it("starts with the default preset, active in main", () => {
    const kv = memoryKv();
    expect(listPresets(kv)).toEqual([DEFAULT_PRESET]);
    expect(activePresetId(kv)).toBe("yui");
    expect(openPresets(kv)).toEqual([{ id: "yui", name: "YUI" }]);
  });

  it("adds and replaces presets by id", () => {
    const kv = memoryKv();
    savePreset(kv, preset("mika", "Mika"));
    savePreset(kv, preset("mika", "Mika II", { persona: "calm" }));
    expect(listPresets(kv).map((p) => p.name)).toEqual(["YUI", "Mika II"]);
    expect(getPreset(kv, "mika")?.persona).toBe("calm");
  });

  it("keeps API keys out of a preset: an unknown field is refused", () => {
    const withKey = { ...preset("mika", "Mika"), api_key: "sk-x" };
    expect(PresetSchema.safeParse(withKey).success).toBe(false);
    const backendKey = { ...preset("mika", "Mika"), backend: { transport: "chat", api_key: "sk-x" } };
    expect(PresetSchema.safeParse(backendKey).success).toBe(false);
  });

  it("accepts the backend settings of every transport, broker_base_url included", () => {
    for (const backend of [
      { transport: "chat", base_url: "http://127.0.0.1:8000/v1", model: "m" },
      {
        transport: "responses",
        base_url: "https://api.example.com/v1",
        broker_base_url: "http://127.0.0.1:9/",
      },
      { transport: "push", push_url: "ws://127.0.0.1:9000/push" },
    ]) {
      expect(PresetSchema.safeParse({ ...preset("a", "A"), backend }).success, backend.transport).toBe(true);
    }
    expect(PresetSchema.safeParse({ ...preset("a", "A"), backend: { transport: "grpc" } }).success).toBe(
      false,
    );
    expect(
      PresetSchema.safeParse({ ...preset("a", "A"), backend: { transport: "chat", base_url: "file:///x" } })
        .success,
    ).toBe(false);
  });

  it("refuses ids that are not slugs or that are reserved, and duplicate ids", () => {
    for (const id of ["user", "presets", "Mika", "a.b", "", "-x"]) {
      expect(PresetSchema.safeParse(preset(id, "X")).success, id).toBe(false);
    }
    expect(PresetListSchema.safeParse([preset("a", "A"), preset("a", "B")]).success).toBe(false);
  });

  it("opens pet presets in order, never main's and never twice", () => {
    const kv = memoryKv();
    savePreset(kv, preset("mika", "Mika"));
    savePreset(kv, preset("aoi", "Aoi"));
    openPet(kv, "aoi");
    openPet(kv, "mika");
    openPet(kv, "aoi");
    openPet(kv, "yui");
    expect(openPetIds(kv)).toEqual(["aoi", "mika"]);
    expect(openPresets(kv).map((p) => p.id)).toEqual(["yui", "aoi", "mika"]);
    closePet(kv, "aoi");
    expect(openPetIds(kv)).toEqual(["mika"]);
    expect(() => openPet(kv, "nobody")).toThrow("unknown preset nobody");
  });

  it("closes a pet window whose preset becomes main's", () => {
    const kv = memoryKv();
    savePreset(kv, preset("mika", "Mika"));
    openPet(kv, "mika");
    setActivePreset(kv, "mika");
    expect(activePresetId(kv)).toBe("mika");
    expect(openPetIds(kv)).toEqual([]);
    expect(openPresets(kv)).toEqual([{ id: "mika", name: "Mika" }]);
  });

  it("removes a preset, moving main to the first one left, and never the last preset", () => {
    const kv = memoryKv();
    savePreset(kv, preset("mika", "Mika"));
    setActivePreset(kv, "mika");
    expect(removePreset(kv, "mika")).toBe(true);
    expect(activePresetId(kv)).toBe("yui");
    expect(removePreset(kv, "mika")).toBe(false);
    expect(() => removePreset(kv, "yui")).toThrow("the last preset cannot be removed");
  });

  it("lists the other characters as choices, user (character) for a preset named user", () => {
    expect(
      characterChoices(
        [
          { id: "a", name: "Aoi" },
          { id: "b", name: "user" },
          { id: "c", name: "Ren" },
        ],
        "c",
      ),
    ).toEqual([
      { id: "a", label: "Aoi" },
      { id: "b", label: "user (character)" },
    ]);
  });
});
