import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { DEFAULT_VOCABULARY } from "../src/app/vocabulary/vocabulary.ts";
import { fileVocabulary } from "./vocabulary-source.ts";

const dir = mkdtempSync(join(tmpdir(), "yui-vocab-"));
afterEach(() => rmSync(join(dir, "v.json"), { force: true }));

it("reads the shipped defaults without a file, picks up edits, and keeps the last good vocabulary on a bad edit", () => {
  const file = join(dir, "v.json");
  const errors: string[] = [];
  const load = fileVocabulary(file, (m) => errors.push(m));
  expect(load()).toEqual(DEFAULT_VOCABULARY);
  writeFileSync(file, JSON.stringify({ ...DEFAULT_VOCABULARY, emotions: [{ id: "calm" }] }));
  expect(load().emotions.map((e) => e.id)).toEqual(["calm"]);
  writeFileSync(
    file,
    JSON.stringify({ ...DEFAULT_VOCABULARY, voice: { engine: "x", mode: "enum", tags: [] } }),
  );
  expect(load().emotions.map((e) => e.id)).toEqual(["calm"]);
  expect(errors).toEqual([
    expect.stringMatching(/v\.json: field voice\.tags: .*; keeping the last good vocabulary$/),
  ]);
});
