import { describe, expect, it } from "vitest";
import { declareTools } from "../../io/chat/tools/declare.ts";
import { DEFAULT_VOCABULARY, parseVocabulary, type Vocabulary } from "../vocabulary/vocabulary.ts";
import { createGenerateExpressTool } from "./express.ts";

const vocab = (over: Partial<Vocabulary>): Vocabulary => ({ ...DEFAULT_VOCABULARY, ...over });
type Props = Record<string, { type: string; enum?: string[]; description?: string }>;
const props = (v: Vocabulary) =>
  (createGenerateExpressTool(v).parameters as { properties: Props }).properties;

describe("generate_express schema", () => {
  it("emotion_id enumerates the loaded emotion ids; every parameter optional; additionalProperties false", () => {
    const p = createGenerateExpressTool(DEFAULT_VOCABULARY).parameters as Record<string, unknown>;
    expect((p.properties as Props).emotion_id!.enum).toEqual(DEFAULT_VOCABULARY.emotions.map((e) => e.id));
    expect(p).not.toHaveProperty("required");
    expect(p.additionalProperties).toBe(false);
    expect(Object.keys(p.properties as Props)).toEqual([
      "emotion_id",
      "motion_id",
      "emotion_text",
      "caption",
    ]);
  });

  it("motion_id leaves out reactive, ambient and broker_publish: false motions", () => {
    const v = vocab({
      motions: [
        { id: "wave", reactive: false, ambient: false, broker_publish: true },
        { id: "poke", reactive: true, ambient: false, broker_publish: true },
        { id: "idle", reactive: false, ambient: true, broker_publish: true },
        { id: "secret", reactive: false, ambient: false, broker_publish: false },
        { id: "nod", reactive: false, ambient: false, broker_publish: true },
      ],
      motion_selection: null,
    });
    expect(props(v).motion_id!.enum).toEqual(["wave", "nod"]);
  });

  it("motion_id is narrowed by the user's selection", () => {
    expect(props(vocab({ motion_selection: ["nod", "bow", "poke_reaction"] })).motion_id!.enum).toEqual([
      "nod",
      "bow",
    ]);
  });

  it("an empty selection omits motion_id and the description omits body motion", () => {
    const tool = createGenerateExpressTool(vocab({ motion_selection: [] }));
    expect((tool.parameters as { properties: Props }).properties).not.toHaveProperty("motion_id");
    expect(tool.description).not.toContain("body motion");
    expect(createGenerateExpressTool(DEFAULT_VOCABULARY).description).toContain("body motion");
  });

  it("emotion_text is the tag enum with each meaning on an enum-mode voice engine, free text otherwise", () => {
    const e = props(
      vocab({
        voice: {
          engine: "sbv2",
          mode: "enum",
          tags: [
            { tag: "whisper", meaning: "very quiet" },
            { tag: "cheer", meaning: "bright" },
          ],
        },
      }),
    ).emotion_text!;
    expect(e.enum).toEqual(["whisper", "cheer"]);
    expect(e.description).toContain("whisper = very quiet");
    expect(e.description).toContain("cheer = bright");
    expect(props(DEFAULT_VOCABULARY).emotion_text).not.toHaveProperty("enum");
    expect(props(DEFAULT_VOCABULARY).caption!.type).toBe("string");
  });

  it("Chat Completions nests the schema; Responses flattens it with strict: false", () => {
    const t = createGenerateExpressTool(DEFAULT_VOCABULARY);
    expect(declareTools([t], "chat")).toEqual([
      {
        type: "function",
        function: { name: "generate_express", description: t.description, parameters: t.parameters },
      },
    ]);
    expect(declareTools([t], "responses")).toEqual([
      {
        type: "function",
        name: "generate_express",
        description: t.description,
        parameters: t.parameters,
        strict: false,
      },
    ]);
  });

  it("is cue-only and answers ok", async () => {
    const t = createGenerateExpressTool(DEFAULT_VOCABULARY);
    expect(t.oneWay).toBe(true);
    expect(
      await t.run(
        { emotion_id: "happy" },
        { signal: new AbortController().signal, turnId: "t", presetId: "p" },
      ),
    ).toBe("ok");
  });
});

describe("vocabulary files", () => {
  it("an invalid file is refused naming the file, the field and the problem", () => {
    const r = parseVocabulary(
      JSON.stringify({ ...DEFAULT_VOCABULARY, emotions: [{ id: "Bad Id" }] }),
      "/x/vocabulary.json",
    );
    expect(r).toEqual({
      ok: false,
      error: expect.stringMatching(/^\/x\/vocabulary\.json: field emotions\.0\.id: must be 1-64 characters/),
    });
    expect(parseVocabulary("{", "v.json")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^v\.json: not valid JSON/),
    });
    const dup = parseVocabulary(
      JSON.stringify({ ...DEFAULT_VOCABULARY, motions: [{ id: "a" }, { id: "a" }] }),
      "v.json",
    );
    expect(dup).toEqual({ ok: false, error: 'v.json: field motions.1.id: duplicate id "a"' });
  });
});
