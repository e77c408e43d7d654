import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { REPO, startHarness } from "../../src/avatar/harness/serve.ts";
import { generateDefaultVrm } from "./main.ts";

// Screenshots of the default character as this checkout generates it, for comparing its look before and
// after a change to the generator (open them with an image viewer): full figure at the stage bench's size
// (480x640), bust at the expression tests' size (360x420), neutral and happy, and a 2x close-up of the face.
// Written to test-output/avatar/yui-<label>-<view>.png on a grey backdrop (outlines show against it).
// Run: npx tsx tools/vrm-gen/shots.ts <label> [--vrm <file>]   (default: the character generated now)

async function main() {
  const label = process.argv[2];
  if (!label || !/^[\w-]+$/.test(label)) throw new Error("usage: shots.ts <label> [--vrm <file>]");
  const given = process.argv.indexOf("--vrm");
  const vrm =
    given > 0 ? resolve(process.argv[given + 1]!) : resolve(REPO, ".cache", "vrm-shots", `${label}.vrm`);
  if (given < 0) await generateDefaultVrm(vrm);
  const out = resolve(REPO, "test-output", "avatar");
  await mkdir(out, { recursive: true });
  const h = await startHarness([resolve(vrm, "..")]);
  try {
    await h.page.addStyleTag({ content: "html, body { background: #9aa3ad !important; }" });
    const views = [
      { view: "full", framing: "full", w: 480, hgt: 640, cue: "neutral" },
      { view: "bust", framing: "bust", w: 360, hgt: 420, cue: "neutral" },
      { view: "bust-happy", framing: "bust", w: 360, hgt: 420, cue: "happy" },
      { view: "face", framing: "bust", w: 720, hgt: 840, cue: "neutral" },
    ] as const;
    for (const v of views) {
      await h.page.evaluate(
        (f) =>
          window.harness.create({ manual: true, idle: false, framing: f, antialias: true, blendIn: 0.1 }),
        v.framing,
      );
      await h.page.setViewportSize({ width: v.w, height: v.hgt });
      await h.page.evaluate(([w, hgt]) => window.harness.setSize(w, hgt), [v.w, v.hgt] as const);
      const loaded = await h.page.evaluate((u) => window.harness.load(u), h.fileUrl(vrm));
      if (!loaded.ok) throw new Error(loaded.error);
      await h.page.evaluate((e) => window.harness.playCue({ emotion_id: e }), v.cue);
      await h.page.evaluate(() => window.harness.step(0.25, 3));
      const path = resolve(out, `yui-${label}-${v.view}.png`);
      await h.page.locator("canvas").screenshot({ path });
      console.log(path);
    }
  } finally {
    await h.close();
  }
}

main().catch((err: unknown) => {
  console.error(`shots failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
