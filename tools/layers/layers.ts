/**
 * The import graph of the app's folders, read with the TypeScript compiler's own pre-processor (static and
 * dynamic imports, `export … from`), and the two rules its layers keep (docs/architecture.md#the-layers):
 *
 * - no two folders import each other: at depth 2 and 3 under src/, host/ and shell/ (`src/app`,
 *   `src/io/chat`, `host/server`, …), where a file directly under a top folder counts as that folder (`host`);
 * - imports point down: each layer of src/ imports only its own layer and those below it (LAYERS), and
 *   nothing under src/ imports host/ or shell/, which sit on top of the page code; host/ and shell/ import
 *   the contract, the domain and io, never a window's file (src/ui).
 *
 * tools/, Mods/ and bench/ are walked too: the pair rule covers them (no two mods, or a tool and the app, import
 * each other), and one more rule keeps test support out of what ships (supportImports): the app's code (src/,
 * host/, shell/) and a mod's code import nothing from tools/, bench/ or another top folder's mod, and
 * tools/testing is imported by tests and harnesses only (TEST_SUPPORT).
 *
 * tests/ (integration tests that drive src/ through the host) may import anything and is not walked.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import ts from "typescript";

/** The folders walked, relative to the root: the app's three, then the tools, the mods and the benchmarks. */
export const WALKED = ["src", "host", "shell", "tools", "Mods", "bench"] as const;

/**
 * The layers of src/, bottom first: a folder may import folders of its own rank or below. Folders at the
 * same rank may import one another one way only (the pair rule catches both ways).
 */
export const LAYERS: readonly (readonly string[])[] = [
  ["src/protocol"],
  ["src/io"],
  ["src/app", "src/body"],
  ["src/avatar", "src/voice"],
  ["src/ui"],
];

/** One import: the importing file and the imported one, both relative to the root with `/`. */
export interface Edge {
  from: string;
  to: string;
}

/** Two folders that import each other, with the files on each side. */
export interface MutualPair {
  a: string;
  b: string;
  aToB: Edge[];
  bToA: Edge[];
}

const SOURCE = /\.(ts|mts|cts|tsx|js|mjs)$/;

/** Every relative import of every source file under `WALKED` in `root` (node_modules and dist left out). */
export function importEdges(root: string): Edge[] {
  const edges: Edge[] = [];
  for (const base of WALKED) {
    let names: string[];
    try {
      names = readdirSync(join(root, base), { recursive: true, encoding: "utf8" });
    } catch {
      continue;
    }
    for (const name of names) {
      const file = posix.join(base, name.split("\\").join("/"));
      if (!SOURCE.test(file) || /(^|\/)(node_modules|dist)\//.test(file) || file.endsWith(".d.ts")) continue;
      const text = readFileSync(join(root, file), "utf8");
      for (const spec of ts.preProcessFile(text, true, true).importedFiles) {
        if (!spec.fileName.startsWith(".")) continue;
        const to = relative(root, join(root, dirname(file), spec.fileName))
          .split("\\")
          .join("/");
        edges.push({ from: file, to });
      }
    }
  }
  return edges;
}

/** The folder a file counts in at `depth` path parts; a file above that depth counts in its own folder. */
export function folderOf(file: string, depth: number): string {
  const parts = file.split("/");
  return parts.length > depth ? parts.slice(0, depth).join("/") : parts.slice(0, -1).join("/");
}

const inside = (a: string, b: string) => a === b || a.startsWith(`${b}/`);
const inApp = (file: string) => ["src", "host", "shell"].some((top) => inside(file, top));

/** Every pair of folders (depth 2 and 3) whose files import each other, each pair once, sorted. */
export function mutualPairs(edges: readonly Edge[]): MutualPair[] {
  const between = new Map<string, Edge[]>();
  for (const e of edges) {
    if (!WALKED.some((w) => inside(e.to, w))) continue;
    // Tests and harnesses reach across to what they test with (tools/testing, tools/vrm-gen's models, a mod's
    // test/): outside the app's own folders their imports are no dependency of the code that ships.
    if (TEST_SUPPORT.test(e.from) && !(inApp(e.from) && inApp(e.to))) continue;
    for (const depth of [2, 3]) {
      const a = folderOf(e.from, depth);
      const b = folderOf(e.to, depth);
      // A folder and one inside it are one place, not a pair.
      if (inside(a, b) || inside(b, a)) continue;
      const key = `${a}\0${b}`;
      const list = between.get(key) ?? [];
      if (!list.some((x) => x.from === e.from && x.to === e.to)) list.push(e);
      between.set(key, list);
    }
  }
  const pairs: MutualPair[] = [];
  for (const [key, aToB] of between) {
    const [a, b] = key.split("\0") as [string, string];
    const bToA = between.get(`${b}\0${a}`);
    if (bToA && a < b) pairs.push({ a, b, aToB, bToA });
  }
  return pairs.sort((x, y) => `${x.a} ${x.b}`.localeCompare(`${y.a} ${y.b}`));
}

/** The rank of a file's layer in LAYERS, or -1 when it is in none (host/, shell/, a file directly in src/). */
export function layerOf(file: string): number {
  return LAYERS.findIndex((rank) => rank.some((folder) => inside(file, folder)));
}

/**
 * Imports that point the wrong way: from src/ into host/ or shell/, from host/ or shell/ into a window's file
 * (src/ui), or from a layer of src/ up into a higher one.
 */
export function upwardImports(edges: readonly Edge[]): Edge[] {
  const wrong = edges.filter((e) => {
    if (!inside(e.from, "src")) return inside(e.to, "src/ui");
    if (inside(e.to, "host") || inside(e.to, "shell")) return true;
    const from = layerOf(e.from);
    const to = layerOf(e.to);
    return from >= 0 && to > from;
  });
  return wrong.sort((x, y) => `${x.from} ${x.to}`.localeCompare(`${y.from} ${y.to}`));
}

/** A pair as a test failure reads it: the two folders, then up to `max` files each way. */
export function describePair(p: MutualPair, max = 4): string {
  const files = (es: Edge[]) =>
    es
      .slice(0, max)
      .map((e) => `    ${e.from} -> ${e.to}`)
      .join("\n");
  return `${p.a} <-> ${p.b}\n${files(p.aToB)}\n${files(p.bToA)}`;
}

/**
 * Test support: a test, a benchmark, a harness page's code, or a file or folder named for testing (`testing.ts`,
 * `testing/`, `test-tools.ts`, a mod's `test/`). It may import what it tests with, tools/testing included.
 */
export const TEST_SUPPORT =
  /\.(test|bench)\.[mc]?[jt]sx?$|(^|\/)(testing|harness|test|bench)(\/|\.[mc]?[jt]s$)|(^|\/)test-[^/]*$/;

/** The top folder a file belongs to, and for a mod its own folder (`Mods/factorio`). */
const packageOf = (file: string): string => {
  const parts = file.split("/");
  return parts[0] === "Mods" ? parts.slice(0, 2).join("/") : (parts[0] ?? "");
};

/**
 * Imports of test support by code that ships: the app's code (src/, host/, shell/) into tools/, bench/ or Mods/;
 * a mod's code outside its own folder; anything but test support into tools/testing.
 */
export function supportImports(edges: readonly Edge[]): Edge[] {
  const wrong = edges.filter((e) => {
    if (TEST_SUPPORT.test(e.from)) return false;
    if (inside(e.to, "tools/testing")) return true;
    if (inApp(e.from)) return ["tools", "bench", "Mods"].some((top) => inside(e.to, top));
    if (inside(e.from, "Mods")) return packageOf(e.to) !== packageOf(e.from);
    return false;
  });
  return wrong.sort((x, y) => `${x.from} ${x.to}`.localeCompare(`${y.from} ${y.to}`));
}
