import { expect, it } from "vitest";
import { DEFAULT_VOCABULARY } from "../app/vocabulary/vocabulary.ts";
import { DEFAULT_EXPRESSIONS } from "./default-expressions.ts";

it("the shipped vocabulary carries the avatar's default face for every emotion", () => {
  const fromVocabulary = Object.fromEntries(DEFAULT_VOCABULARY.emotions.map((e) => [e.id, e.expression]));
  expect(fromVocabulary).toEqual(DEFAULT_EXPRESSIONS);
});
