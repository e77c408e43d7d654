// What the stage tests share, run against a started harness: the page's stage calls, and the checks that
// stage.browser.test.ts runs on generated models and stage.interop.test.ts on the VRM specification's samples.
import { expect } from "vitest";
import type { Harness } from "./serve.ts";

/** The harness page's stage calls (window.harness), each one page.evaluate; paths are served by the harness. */
export function stageCalls(h: Harness) {
  return {
    url: (path: string) => h.fileUrl(path),
    load: (path: string) => h.page.evaluate((u) => window.harness.load(u), h.fileUrl(path)),
    step: (dt: number, frames = 1) =>
      h.page.evaluate(([d, f]) => window.harness.step(d, f), [dt, frames] as const),
    inspect: () => h.page.evaluate(() => window.harness.inspect()),
    setSize: (w: number, hgt: number) =>
      h.page.evaluate(([a, b]) => window.harness.setSize(a, b), [w, hgt] as const),
    setExpression: (name: string, w: number) =>
      h.page.evaluate(([n, v]) => window.harness.setExpression(n, v), [name, w] as const),
  };
}

/**
 * The isBinary override rules of VRM 1.0 on a pair of models like the specification's samples: in
 * `overrides` a binary happy (overrideBlink blend) blocks blink only above 0.5; in `overridden` a binary
 * blink is fully suppressed by any non-zero happy. Expects a created stage.
 */
export async function expectIsBinaryRules(
  calls: ReturnType<typeof stageCalls>,
  models: { overrides: string; overridden: string },
): Promise<void> {
  const { load, step, setSize, setExpression } = calls;
  await setSize(160, 160);
  const render = async (happy: number, blink: number) => {
    await setExpression("happy", happy);
    await setExpression("blink", blink);
    return (await step(0)).hash;
  };
  expect((await load(models.overrides)).ok).toBe(true);
  expect(await render(0.6, 1)).toBe(await render(0.6, 0));
  expect(await render(0.4, 1)).toBe(await render(0, 1));
  expect(await render(0.4, 1)).not.toBe(await render(0.4, 0));
  expect((await load(models.overridden)).ok).toBe(true);
  expect(await render(0.3, 1)).toBe(await render(0.3, 0));
  expect(await render(0, 1)).not.toBe(await render(0, 0));
}
