import { expect, it } from "vitest";
import { DEFAULT_EXPRESSIONS } from "../../avatar/default-expressions.ts";
import { DEFAULT_VOCABULARY } from "./vocabulary.ts";

it("the shipped vocabulary carries the avatar's default face for every emotion", () => {
  const fromVocabulary = Object.fromEntries(DEFAULT_VOCABULARY.emotions.map((e) => [e.id, e.expression]));
  expect(fromVocabulary).toEqual(DEFAULT_EXPRESSIONS);
});
