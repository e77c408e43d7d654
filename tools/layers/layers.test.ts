import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { describePair, importEdges, mutualPairs, supportImports, upwardImports } from "./layers.ts";

const ROOT = join(import.meta.dirname, "..", "..");

describe("the layers of the real tree (docs/architecture.md#the-layers)", () => {
  const edges = importEdges(ROOT);

  it("reads the tree's imports", () => {
    // A walk that found nothing would pass every rule below.
    expect(edges.length).toBeGreaterThan(500);
    expect(edges).toContainEqual({ from: "src/ui/panel.ts", to: "src/ui/panel-view.ts" });
  });

  it("walks tools/, Mods/ and bench/ too", () => {
    for (const top of ["tools/", "Mods/", "bench/"])
      expect(edges.some((e) => e.from.startsWith(top))).toBe(true);
  });

  it("no two folders under src/, host/, shell/, tools/, Mods/ or bench/ import each other", () => {
    expect(mutualPairs(edges).map((p) => describePair(p))).toEqual([]);
  });

  it("imports point down: src/ imports no host/ or shell/ file, they import no window's file, no layer of src/ a higher one", () => {
    expect(upwardImports(edges).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it("test support stays out of what ships: tools/testing only in tests and harnesses, no app or mod code importing tools/, bench/ or another mod", () => {
    expect(supportImports(edges).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });
});

describe("the checks catch what they claim to (a planted tree)", () => {
  let dir = "";
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = "";
  });
  const plant = (files: Record<string, string>): string => {
    dir = mkdtempSync(join(tmpdir(), "yui-layers-"));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return dir;
  };

  it("names a planted cycle between two folders and the files on each side", () => {
    const root = plant({
      "src/app/turn/run.ts": `import { send } from "../../io/chat/send.ts";\nexport const run = send;\n`,
      "src/io/chat/send.ts": `import type { Turn } from "../../app/turn/types.ts";\nexport const send = 1;\n`,
      "src/app/turn/types.ts": "export type Turn = 1;\n",
      "src/io/chat/other.ts": `export const x = await import("./send.ts");\n`,
    });
    const pairs = mutualPairs(importEdges(root));
    expect(pairs.map((p) => `${p.a} <-> ${p.b}`)).toEqual([
      "src/app <-> src/io",
      "src/app/turn <-> src/io/chat",
    ]);
    expect(describePair(pairs[0]!)).toBe(
      [
        "src/app <-> src/io",
        "    src/app/turn/run.ts -> src/io/chat/send.ts",
        "    src/io/chat/send.ts -> src/app/turn/types.ts",
      ].join("\n"),
    );
  });

  it("counts a file directly under a top folder in that folder, and sees dynamic imports and re-exports", () => {
    const root = plant({
      "host/socket.ts": `export * from "../src/io/push.ts";\n`,
      "src/io/push.ts": `export const load = () => import("../../host/socket.ts");\n`,
    });
    expect(mutualPairs(importEdges(root)).map((p) => `${p.a} <-> ${p.b}`)).toEqual(["host <-> src/io"]);
  });

  it("finds no pair in a tree whose imports point one way, nor between a folder and one inside it", () => {
    const root = plant({
      "src/ui/panel.ts": `import "../app/session/session.ts";\nimport "./view/list.ts";\n`,
      "src/ui/view/list.ts": `import "../panel.ts";\n`,
      "src/app/session/session.ts": `import "../../io/chat/engine.ts";\n`,
      "src/io/chat/engine.ts": "export {};\n",
    });
    const edges = importEdges(root);
    expect(mutualPairs(edges)).toEqual([]);
    expect(upwardImports(edges)).toEqual([]);
  });

  it("flags src/ importing host/, host/ importing a window's file, and a lower layer importing a higher one", () => {
    const root = plant({
      "src/ui/errors.test.ts": `import "../../host/server/server.ts";\n`,
      "host/server/server.ts": `import "../../src/ui/errors.ts";\nimport "../../src/app/session.ts";\n`,
      "src/io/chat/engine.ts": `import "../../ui/dom.ts";\n`,
      "src/ui/dom.ts": "export {};\n",
    });
    expect(upwardImports(importEdges(root))).toEqual([
      { from: "host/server/server.ts", to: "src/ui/errors.ts" },
      { from: "src/io/chat/engine.ts", to: "src/ui/dom.ts" },
      { from: "src/ui/errors.test.ts", to: "host/server/server.ts" },
    ]);
  });

  it("flags test support imported by code that ships, and lets tests, harnesses and benchmarks use it", () => {
    const root = plant({
      "src/ui/panel.ts": `import "../../tools/testing/chromium.ts";\n`,
      "host/server/server.ts": `import "../../tools/scripted-backend/server.ts";\n`,
      "Mods/factorio/src/server.ts": `import "../../mod-kit/src/index.ts";\nimport "./rcon.ts";\n`,
      "tools/vrm-gen/main.ts": `import "../testing/chromium.ts";\n`,
      "src/ui/panel.test.ts": `import "../../tools/testing/chromium.ts";\n`,
      "src/voice/harness/serve.ts": `import "../../../tools/testing/chromium.ts";\n`,
      "host/server/testing.ts": `import "../../tools/scripted-backend/server.ts";\n`,
      "bench/listen.ts": `import "../tools/testing/chromium.ts";\n`,
      "Mods/avatar/src/server.test.ts": `import "../../../host/ingress/testing.ts";\n`,
    });
    expect(supportImports(importEdges(root))).toEqual([
      { from: "host/server/server.ts", to: "tools/scripted-backend/server.ts" },
      { from: "Mods/factorio/src/server.ts", to: "Mods/mod-kit/src/index.ts" },
      { from: "src/ui/panel.ts", to: "tools/testing/chromium.ts" },
      { from: "tools/vrm-gen/main.ts", to: "tools/testing/chromium.ts" },
    ]);
  });
});
