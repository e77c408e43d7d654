import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeStage } from "../../tools/testing/stage-probe.ts";
import { type Harness, REPO, startHarness } from "../avatar/harness/serve.ts";

// The stage area in real Chromium (the avatar harness's server and browser): `?stage=empty` runs the stage
// with no character (bench:idle's peer); without it the stage asks for the preset's model.

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 240_000);
afterAll(async () => {
  await h?.close();
});

/** Mounts the stage area on a fresh page opened at `search`; returns what the page shows once it settles. */
async function mountAt(search: string) {
  const page = await h.browser.newPage();
  await probeStage(page);
  try {
    await page.goto(`${h.url}${search}`);
    await page.waitForFunction(() => document.title === "harness ready", null, { timeout: 90_000 });
    const requests: string[] = [];
    page.on("request", (r) => requests.push(new URL(r.url()).pathname));
    // A string, not a function: vitest would rewrite a dynamic import() in test code for Node.
    await page.evaluate(`(async () => {
      const { mountStage } = await import(${JSON.stringify(h.fileUrl(`${REPO}/src/ui/stage-area.ts`))});
      const box = document.createElement("div");
      box.id = "box";
      box.style.width = "48px";
      box.style.height = "64px";
      document.body.append(box);
      mountStage(box, "nobody");
    })()`);
    await page.waitForFunction(
      () => {
        const box = document.getElementById("box")!;
        return box.classList.contains("placeholder") || !box.querySelector(".stage-note");
      },
      null,
      { timeout: 120_000 },
    );
    const shown = await page.evaluate(() => {
      const s = (
        window as unknown as { __yuiStage?: { inspect(): { loaded: string | null; running: boolean } } }
      ).__yuiStage;
      return {
        placeholder: document.getElementById("box")!.classList.contains("placeholder"),
        loaded: s?.inspect().loaded ?? null,
        running: s?.inspect().running ?? false,
      };
    });
    return { ...shown, askedForModel: requests.includes("/avatar/nobody.vrm") };
  } finally {
    await page.close();
  }
}

describe("stage area", () => {
  it("runs the stage with no character under ?stage=empty, and asks for the preset's model otherwise", async () => {
    const empty = await mountAt("?stage=empty");
    expect(empty).toEqual({ placeholder: false, loaded: null, running: true, askedForModel: false });
    // The harness serves no /avatar/: the model fails and the placeholder shows, after asking for it.
    const normal = await mountAt("");
    expect(normal.askedForModel).toBe(true);
    expect(normal.placeholder).toBe(true);
  }, 300_000);
});
