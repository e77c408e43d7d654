/**
 * A second character of her own (issue 33): each new preset without a model of its own wears a generated
 * character no other preset wears. The real host serves `/avatar/<presetId>.vrm` from the generated files; the
 * models two presets get differ in their materials and hair.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { characterPreset } from "../../src/app/presets/preset.ts";
import { removePreset, savePreset } from "../../src/app/presets/presets.ts";
import { lookKey } from "../../src/protocol/looks.ts";
import { buildCharacter, VARIANTS } from "../../tools/vrm-gen/character.ts";
import { readGlbJson } from "../../tools/vrm-gen/glb.ts";
import { writeVrm } from "../../tools/vrm-gen/write-vrm.ts";
import { lookCount, lookFile, lookFor } from "./looks.ts";
import { type Host, startHost } from "./server.ts";
import { hostFetch } from "./testing.ts";

let dir: string;
let host: Host;
let defaultAvatar: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "yui-looks-"));
  const avatars = join(dir, "avatar");
  mkdirSync(avatars);
  defaultAvatar = join(avatars, "default.vrm");
  // The build's files: Yui and the others beside her (three of them are enough here).
  for (let v = 0; v < 3; v++) writeFileSync(lookFile(defaultAvatar, v), await writeVrm(buildCharacter(v)));
  host = await startHost({
    port: 0,
    dataDir: join(dir, "data"),
    env: {},
    browserCommands: false,
    defaultAvatar,
  });
}, 60_000);
afterAll(async () => {
  await host?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Json {
  extensions: { VRMC_vrm: { meta: { name: string } }; VRMC_springBone: { springs: Array<{ name: string }> } };
  materials: Array<{ name: string; extensions: { VRMC_materials_mtoon: unknown } }>;
}
const model = async (presetId: string) => {
  const res = await hostFetch(host, `/avatar/${presetId}.vrm`);
  expect(res.status).toBe(200);
  return readGlbJson(new Uint8Array(await res.arrayBuffer())) as Json;
};
const material = (j: Json, name: string) => j.materials.find((m) => m.name === name)?.extensions;

describe("the generated characters presets wear", () => {
  it("counts the generated files beside the default one", () => {
    expect(lookCount(defaultAvatar)).toBe(3);
    expect(lookCount(join(dir, "nowhere", "default.vrm"))).toBe(1);
  });

  it("gives a new preset a look no other preset wears, and keeps it", async () => {
    savePreset(host.store, characterPreset("mika", "Mika"));
    const yui = await model("yui");
    const mika = await model("mika");
    expect(yui.extensions.VRMC_vrm.meta.name).toBe(VARIANTS[0]!.name);
    expect(mika.extensions.VRMC_vrm.meta.name).toBe(VARIANTS[1]!.name);
    // Her materials and her hair differ from the first character's.
    for (const name of ["hair", "hairCap", "iris", "accent"])
      expect(material(mika, name), name).not.toEqual(material(yui, name));
    expect(mika.extensions.VRMC_springBone.springs.map((s) => s.name)).not.toEqual(
      yui.extensions.VRMC_springBone.springs.map((s) => s.name),
    );
    expect(host.store.get(lookKey("yui"))).toBe(0);
    expect(host.store.get(lookKey("mika"))).toBe(1);
    // Asked again, she wears the same.
    expect((await model("mika")).extensions.VRMC_vrm.meta.name).toBe(VARIANTS[1]!.name);
  });

  it("a third preset gets the third look; once all are worn, the least worn again", async () => {
    savePreset(host.store, characterPreset("rin", "Rin"));
    expect((await model("rin")).extensions.VRMC_vrm.meta.name).toBe(VARIANTS[2]!.name);
    savePreset(host.store, characterPreset("nao", "Nao"));
    expect(lookFor(host.store, "nao", 3)).toBe(0);
    // A preset removed frees her look for the next new one.
    removePreset(host.store, "mika");
    savePreset(host.store, characterPreset("ami", "Ami"));
    expect(lookFor(host.store, "ami", 3)).toBe(1);
  });

  it("a preset with a model of its own is drawn with it, and wears no generated look", async () => {
    const own = join(dir, "own.vrm");
    writeFileSync(own, await writeVrm(buildCharacter(), { name: "Mine" }));
    savePreset(host.store, { ...characterPreset("own", "Own"), avatar: own });
    expect((await model("own")).extensions.VRMC_vrm.meta.name).toBe("Mine");
    expect(host.store.get(lookKey("own"))).toBeNull();
  });
});
