import { describe, expect, it } from "vitest";
import type { ClientTool } from "../../io/chat/tools/client-tools.ts";
import { Addressing } from "../addressing/addressing.ts";
import type { PresetRef } from "../presets/presets.ts";
import { ADDRESS_CHARACTER_RESULTS, createAddressCharacterTool } from "./address-character.ts";

// address_character's result strings as the spec writes them, once.
const SPEC = {
  ok: "ok",
  alreadyAddressed: (name: string) => `ignored: already addressed ${name}`,
  unknownTarget: "error: unknown target",
};

const OPEN: PresetRef[] = [
  { id: "mika", name: "Mika" },
  { id: "aoi", name: "Aoi" },
  { id: "ren", name: "Ren" },
];

function setup(open = OPEN, self = "mika") {
  const addressing = new Addressing({ self: open.find((p) => p.id === self)!, newExchangeId: () => "x1" });
  const tool = createAddressCharacterTool({ openPresets: () => open, presetId: self, addressing });
  return { addressing, tool };
}

const call = (t: ClientTool, args: Record<string, unknown>, turnId = "t1") =>
  t.run(args, { signal: new AbortController().signal, turnId, presetId: "mika" });
const toEnum = (t: ClientTool) => (t.parameters.properties as Record<string, { enum?: unknown[] }>).to!.enum;

describe("address_character", () => {
  it("answers exactly the spec's strings", () => {
    expect(ADDRESS_CHARACTER_RESULTS.ok).toBe(SPEC.ok);
    expect(ADDRESS_CHARACTER_RESULTS.alreadyAddressed("Aoi")).toBe(SPEC.alreadyAddressed("Aoi"));
    expect(ADDRESS_CHARACTER_RESULTS.unknownTarget).toBe(SPEC.unknownTarget);
  });

  it("lists the other open presets' names in to, never the user, read when the schema is built", () => {
    const open = [...OPEN];
    const { tool } = setup(open);
    expect(toEnum(tool)).toEqual(["Aoi", "Ren"]);
    expect(tool.parameters.required).toEqual(["to"]);
    open.push({ id: "kai", name: "Kai" });
    expect(toEnum(tool)).toEqual(["Aoi", "Ren"]);
    expect(toEnum(setup(open).tool)).toEqual(["Aoi", "Ren", "Kai"]);
  });

  it("has no switch", () => {
    expect(setup().tool.switchId).toBeUndefined();
  });

  it("records the recipient on the turn and answers ok", async () => {
    const { tool, addressing } = setup();
    addressing.beginTurn("t1", { kind: "user" });
    expect(await call(tool, { to: "Aoi" })).toBe(SPEC.ok);
    expect(addressing.recipient("t1")).toEqual({ id: "aoi", name: "Aoi" });
  });

  it("keeps the first recipient of a reply and ignores a second call", async () => {
    const { tool, addressing } = setup();
    addressing.beginTurn("t1", { kind: "user" });
    expect(await call(tool, { to: "Aoi" })).toBe(SPEC.ok);
    expect(await call(tool, { to: "Ren" })).toBe(SPEC.alreadyAddressed("Aoi"));
    expect(await call(tool, { to: "Aoi" })).toBe(SPEC.alreadyAddressed("Aoi"));
    expect(addressing.recipient("t1")).toEqual({ id: "aoi", name: "Aoi" });
    // The next turn is a new reply.
    addressing.beginTurn("t2", { kind: "user" });
    expect(await call(tool, { to: "Ren" }, "t2")).toBe(SPEC.ok);
  });

  it("refuses the user, itself, a closed preset and a non-string", async () => {
    const { tool, addressing } = setup();
    for (const to of ["user", "Mika", "Kai", "aoi", 1, undefined]) {
      expect(await call(tool, { to }), String(to)).toBe(SPEC.unknownTarget);
    }
    expect(addressing.recipient("t1")).toBeUndefined();
  });

  it("lists a preset named user as user (character) and routes to that preset", async () => {
    const open = [...OPEN, { id: "u2", name: "user" }];
    const { tool, addressing } = setup(open);
    expect(toEnum(tool)).toEqual(["Aoi", "Ren", "user (character)"]);
    expect(await call(tool, { to: "user" })).toBe(SPEC.unknownTarget);
    expect(await call(tool, { to: "user (character)" })).toBe(SPEC.ok);
    expect(addressing.recipient("t1")).toEqual({ id: "u2", name: "user" });
    expect(await call(tool, { to: "Aoi" })).toBe(SPEC.alreadyAddressed("user (character)"));
  });

  it("declares no enum while no other character is open, and refuses every target", async () => {
    const { tool } = setup([{ id: "mika", name: "Mika" }]);
    expect(toEnum(tool)).toBeUndefined();
    expect(await call(tool, { to: "Aoi" })).toBe(SPEC.unknownTarget);
  });
});
