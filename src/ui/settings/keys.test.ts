import { describe, expect, it } from "vitest";
import { isPresetKey, isRelationsKey, isSwitchKey } from "./keys.ts";
import { slugFor } from "./shared.ts";

describe("the keys settings and quick controls redraw on", () => {
  it("the preset keys are the list, the main one and the open ones (docs/store.md)", () => {
    for (const k of ["yui.presets", "yui.presets.active", "yui.presets.open"])
      expect(isPresetKey(k)).toBe(true);
    for (const k of ["yui.presetsfan.relations", "yui.yui.api_key", "yui.presets.other", "yui.relations"])
      expect(isPresetKey(k)).toBe(false);
  });

  it("relations: any preset's relations and the Relations switch, nothing that merely ends alike", () => {
    for (const k of ["yui.yui.relations", "yui.mika-2.relations", "yui.relations"])
      expect(isRelationsKey(k)).toBe(true);
    for (const k of ["yui.Mika.relations", "yui.a.b.relations", "yui.yui.history", "yui.presets"])
      expect(isRelationsKey(k)).toBe(false);
  });

  it("the switches are browser, relations and screen capture", () => {
    for (const k of ["yui.browser", "yui.relations", "yui.screen_capture"]) expect(isSwitchKey(k)).toBe(true);
    expect(isSwitchKey("yui.agent_notify")).toBe(false);
  });
});

describe("a new character's id", () => {
  it("is a slug of the name, unique, never a reserved id", () => {
    expect(slugFor("Mika Chan!", new Set())).toBe("mika-chan");
    expect(slugFor("Mika", new Set(["mika", "mika-2"]))).toBe("mika-3");
    expect(slugFor("Presets", new Set())).toBe("presets-2");
    expect(slugFor("User", new Set())).toBe("user-2");
    expect(slugFor("___", new Set())).toBe("character");
  });
});
