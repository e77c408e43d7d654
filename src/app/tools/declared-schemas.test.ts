/**
 * The declared schemas, byte for byte: what the model is offered for every tool, under the vocabulary and preset
 * variations that change it (spec: client-tools.md, "Declared schema"). The table was taken from the hand-written
 * schemas before they were generated from the tools' argument schemas; a change here is a change on the wire.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createBrowserTool } from "../../io/browser/browser-tool.ts";
import { declareTools } from "../../io/chat/tools/declare.ts";
import { Addressing } from "../addressing/addressing.ts";
import type { PresetRef } from "../presets/presets.ts";
import { DEFAULT_VOCABULARY, type Vocabulary } from "../vocabulary/vocabulary.ts";
import { createAddressCharacterTool } from "./address-character.ts";
import { createAvatarTools } from "./avatar.ts";
import { createGenerateExpressTool } from "./express.ts";
import { createRateRelationTool } from "./relation.ts";

const OPEN: PresetRef[] = [
  { id: "mika", name: "Mika" },
  { id: "aoi", name: "Aoi" },
  { id: "aoi2", name: "Aoi" },
  { id: "yui", name: "ユイ" },
  { id: "u2", name: "user" },
];
const SMALL: Vocabulary = {
  version: 1,
  emotions: [
    { id: "neutral", expression: {} },
    { id: "happy", description: 'smiling "glad"', expression: {} },
  ],
  motions: [
    { id: "wave", description: "waves", reactive: false, ambient: false, broker_publish: true },
    { id: "nod", reactive: false, ambient: false, broker_publish: true },
    { id: "poke", reactive: true, ambient: false, broker_publish: true },
    { id: "idle", reactive: false, ambient: true, broker_publish: true },
    { id: "secret", reactive: false, ambient: false, broker_publish: false },
  ],
  motion_selection: ["nod", "poke", "secret"],
  voice: { engine: "none", mode: "free" },
};
const ENUM_VOICE: Vocabulary = {
  ...DEFAULT_VOCABULARY,
  voice: {
    engine: "sbv2",
    mode: "enum",
    tags: [
      { tag: "whisper", meaning: "very quiet" },
      { tag: "cheer", meaning: "bright, loud" },
    ],
  },
};
// Integer-like ids and names (an object's keys would reorder them) and one-value lists (`enum`, never `const`).
const ODD: Vocabulary = {
  version: 1,
  emotions: [
    { id: "10", expression: {} },
    { id: "2", description: "two", expression: {} },
    { id: "a", expression: {} },
  ],
  motions: [{ id: "1", reactive: false, ambient: false, broker_publish: true }],
  motion_selection: null,
  voice: { engine: "x", mode: "enum", tags: [{ tag: "9", meaning: "nine" }] },
};
const relation = (open: PresetRef[]) =>
  createRateRelationTool({
    openPresets: () => open,
    presetId: "mika",
    enabled: () => true,
    rate: () => ({ off: true }),
  });
const address = (open: PresetRef[]) =>
  createAddressCharacterTool({
    openPresets: () => open,
    presetId: "mika",
    addressing: new Addressing({ self: { id: "mika", name: "Mika" } }),
  });
const browser = () =>
  createBrowserTool({
    readSwitch: async () => false,
    presetId: "mika",
    relay: { run: async () => "", guide: async () => "" },
  });
const avatar = () => createAvatarTools({ executor: () => null, screenCaptureOn: async () => false });
const registry = () => [
  createGenerateExpressTool(DEFAULT_VOCABULARY),
  relation(OPEN),
  address(OPEN),
  browser(),
  ...avatar(),
];

const BUILT: Record<string, () => unknown> = {
  "generate_express, default vocabulary": () => createGenerateExpressTool(DEFAULT_VOCABULARY).parameters,
  "generate_express, empty motion selection": () =>
    createGenerateExpressTool({ ...DEFAULT_VOCABULARY, motion_selection: [] }).parameters,
  "generate_express, enum-mode voice": () => createGenerateExpressTool(ENUM_VOICE).parameters,
  "generate_express, narrowed selection and bare ids": () => createGenerateExpressTool(SMALL).parameters,
  "rate_relation, open presets": () => relation(OPEN).parameters,
  "rate_relation, alone": () => relation([OPEN[0]!]).parameters,
  "address_character, open presets": () => address(OPEN).parameters,
  "address_character, alone": () => address([OPEN[0]!]).parameters,
  browser: () => browser().parameters,
  body_action: () => avatar()[0]!.parameters,
  look: () => avatar()[1]!.parameters,
  "Chat Completions tools[]": () => declareTools(registry(), "chat"),
  "Responses tools[]": () => declareTools(registry(), "responses"),
  "generate_express, integer-like ids and one-value lists": () => createGenerateExpressTool(ODD).parameters,
  "rate_relation, integer-like names": () =>
    relation([OPEN[0]!, { id: "b", name: "10" }, { id: "c", name: "2" }]).parameters,
};

const DECLARED: [string, string][] = [
  [
    "generate_express, default vocabulary",
    `{"type":"object","properties":{"emotion_id":{"type":"string","enum":["neutral","happy","sad","angry","surprised","relaxed","shy","thinking"],"description":"Facial expression: neutral (calm, plain face), happy (smiling, glad), sad (downcast, sorry), angry (annoyed, cross), surprised (startled, amazed), relaxed (at ease, content), shy (bashful, embarrassed), thinking (pondering, unsure)."},"motion_id":{"type":"string","enum":["wave","nod","shake_head","bow","tilt_head","cheer","think","shrug","surprised_jump"],"description":"Body motion: wave (waves a hand), nod (nods yes), shake_head (shakes the head no), bow (bows politely), tilt_head (tilts the head, curious), cheer (cheers with both arms), think (hand to chin, thinking), shrug (shrugs), surprised_jump (jumps in surprise)."},"emotion_text":{"type":"string","description":"Voice tone in a few words (e.g. softly, cheerful, whispering)."},"caption":{"type":"string","description":"Free-text voice direction for the speech around the call."}},"additionalProperties":false}`,
  ],
  [
    "generate_express, empty motion selection",
    `{"type":"object","properties":{"emotion_id":{"type":"string","enum":["neutral","happy","sad","angry","surprised","relaxed","shy","thinking"],"description":"Facial expression: neutral (calm, plain face), happy (smiling, glad), sad (downcast, sorry), angry (annoyed, cross), surprised (startled, amazed), relaxed (at ease, content), shy (bashful, embarrassed), thinking (pondering, unsure)."},"emotion_text":{"type":"string","description":"Voice tone in a few words (e.g. softly, cheerful, whispering)."},"caption":{"type":"string","description":"Free-text voice direction for the speech around the call."}},"additionalProperties":false}`,
  ],
  [
    "generate_express, enum-mode voice",
    `{"type":"object","properties":{"emotion_id":{"type":"string","enum":["neutral","happy","sad","angry","surprised","relaxed","shy","thinking"],"description":"Facial expression: neutral (calm, plain face), happy (smiling, glad), sad (downcast, sorry), angry (annoyed, cross), surprised (startled, amazed), relaxed (at ease, content), shy (bashful, embarrassed), thinking (pondering, unsure)."},"motion_id":{"type":"string","enum":["wave","nod","shake_head","bow","tilt_head","cheer","think","shrug","surprised_jump"],"description":"Body motion: wave (waves a hand), nod (nods yes), shake_head (shakes the head no), bow (bows politely), tilt_head (tilts the head, curious), cheer (cheers with both arms), think (hand to chin, thinking), shrug (shrugs), surprised_jump (jumps in surprise)."},"emotion_text":{"type":"string","enum":["whisper","cheer"],"description":"Voice tone tag: whisper = very quiet; cheer = bright, loud."},"caption":{"type":"string","description":"Free-text voice direction for the speech around the call."}},"additionalProperties":false}`,
  ],
  [
    "generate_express, narrowed selection and bare ids",
    String.raw`{"type":"object","properties":{"emotion_id":{"type":"string","enum":["neutral","happy"],"description":"Facial expression: neutral, happy (smiling \"glad\")."},"motion_id":{"type":"string","enum":["nod"],"description":"Body motion: nod."},"emotion_text":{"type":"string","description":"Voice tone in a few words (e.g. softly, cheerful, whispering)."},"caption":{"type":"string","description":"Free-text voice direction for the speech around the call."}},"additionalProperties":false}`,
  ],
  [
    "rate_relation, open presets",
    `{"type":"object","properties":{"toward":{"type":"string","enum":["user","Aoi (aoi)","Aoi (aoi2)","ユイ","user (character)"],"description":"user (the human) or another open character's name"},"delta":{"type":"integer","enum":[-2,-1,1,2],"description":"the step: -2, -1, 1 or 2"},"why":{"type":"string","maxLength":80,"description":"the reason, at most 80 characters; shown to the user, so write it for them"}},"required":["toward","delta","why"],"additionalProperties":false}`,
  ],
  [
    "rate_relation, alone",
    `{"type":"object","properties":{"toward":{"type":"string","enum":["user"],"description":"user (the human) or another open character's name"},"delta":{"type":"integer","enum":[-2,-1,1,2],"description":"the step: -2, -1, 1 or 2"},"why":{"type":"string","maxLength":80,"description":"the reason, at most 80 characters; shown to the user, so write it for them"}},"required":["toward","delta","why"],"additionalProperties":false}`,
  ],
  [
    "address_character, open presets",
    `{"type":"object","properties":{"to":{"type":"string","enum":["Aoi (aoi)","Aoi (aoi2)","ユイ","user (character)"],"description":"the name of the other open character this reply speaks to"}},"required":["to"],"additionalProperties":false}`,
  ],
  [
    "address_character, alone",
    `{"type":"object","properties":{"to":{"type":"string","description":"the name of the other open character this reply speaks to"}},"required":["to"],"additionalProperties":false}`,
  ],
  [
    "browser",
    `{"type":"object","properties":{"code":{"type":"string","description":"The body of an async function, run after the client's prelude."},"guide":{"type":"boolean","description":"true returns the installed ego lite's guide instead of running code."}},"additionalProperties":false}`,
  ],
  [
    "body_action",
    `{"type":"object","properties":{"action":{"type":"string","enum":["sit_on_window","peek","move_to","stand","go_to_bed"]},"app":{"type":"string","minLength":1,"maxLength":256,"description":"For sit_on_window: the app name, as look at perch_targets lists it."},"side":{"type":"string","enum":["left","right"],"description":"For peek."},"spot":{"type":"string","enum":["center","top_left","top_right","bottom_left","bottom_right"],"description":"For move_to."},"monitor":{"type":"integer","minimum":0,"description":"For move_to: the display number; omitted keeps yours."}},"required":["action"],"additionalProperties":false}`,
  ],
  [
    "look",
    `{"type":"object","properties":{"at":{"type":"string","enum":["body","perch_targets","screen"]},"monitor":{"type":"integer","minimum":0,"description":"For screen: the display number."}},"required":["at"],"additionalProperties":false}`,
  ],
  [
    "Chat Completions tools[]",
    String.raw`[{"type":"function","function":{"name":"generate_express","description":"Places an expression cue (face, body motion, voice tone) on your speech at the point of the call: call it where the feeling shows, before or between sentences. Every field is optional. It answers ok and needs no reply.","parameters":{"type":"object","properties":{"emotion_id":{"type":"string","enum":["neutral","happy","sad","angry","surprised","relaxed","shy","thinking"],"description":"Facial expression: neutral (calm, plain face), happy (smiling, glad), sad (downcast, sorry), angry (annoyed, cross), surprised (startled, amazed), relaxed (at ease, content), shy (bashful, embarrassed), thinking (pondering, unsure)."},"motion_id":{"type":"string","enum":["wave","nod","shake_head","bow","tilt_head","cheer","think","shrug","surprised_jump"],"description":"Body motion: wave (waves a hand), nod (nods yes), shake_head (shakes the head no), bow (bows politely), tilt_head (tilts the head, curious), cheer (cheers with both arms), think (hand to chin, thinking), shrug (shrugs), surprised_jump (jumps in surprise)."},"emotion_text":{"type":"string","description":"Voice tone in a few words (e.g. softly, cheerful, whispering)."},"caption":{"type":"string","description":"Free-text voice direction for the speech around the call."}},"additionalProperties":false}}},{"type":"function","function":{"name":"rate_relation","description":"Moves this character's relation toward the user or another open character by one small step, with the reason. Answers the band after the change (hostile, cold, neutral, warm, close).","parameters":{"type":"object","properties":{"toward":{"type":"string","enum":["user","Aoi (aoi)","Aoi (aoi2)","ユイ","user (character)"],"description":"user (the human) or another open character's name"},"delta":{"type":"integer","enum":[-2,-1,1,2],"description":"the step: -2, -1, 1 or 2"},"why":{"type":"string","maxLength":80,"description":"the reason, at most 80 characters; shown to the user, so write it for them"}},"required":["toward","delta","why"],"additionalProperties":false}}},{"type":"function","function":{"name":"address_character","description":"Names the character this reply is for, so that character receives a turn after the reply's playback. One call per reply.","parameters":{"type":"object","properties":{"to":{"type":"string","enum":["Aoi (aoi)","Aoi (aoi2)","ユイ","user (character)"],"description":"the name of the other open character this reply speaks to"}},"required":["to"],"additionalProperties":false}}},{"type":"function","function":{"name":"browser","description":"Runs your JavaScript against the ego lite browser on the user's computer, in this character's own task space of it. ego lite holds the user's sign-ins; reach and act on pages through its browser SDK. This description takes precedence over the guide.\n- code is the body of an async function: top-level await works, and a static import does not, so a module loads through await import().\n- task, screenshot, and every name starting __yui are reserved; variables start fresh on every call.\n- The injected task is the task space's handle: use it, do not call taskSpace(), and do not finish the space.\n- Observations go to console.log; the output is text.\n- await screenshot(page) attaches an image of the page's viewport. Images need an image-capable model. screenshot restores a minimized ego lite window before it captures.\n- A space the user took over fails with EGO_TASK_SPACE_NAME_IN_USE until the user hands it back in ego lite.\n- Error line numbers are 5 more than the line in code.\n- guide: true returns the full guide (send it without code).","parameters":{"type":"object","properties":{"code":{"type":"string","description":"The body of an async function, run after the client's prelude."},"guide":{"type":"boolean","description":"true returns the installed ego lite's guide instead of running code."}},"additionalProperties":false}}},{"type":"function","function":{"name":"body_action","description":"Moves your body on the user's desktop. action: sit_on_window (needs app: the app whose window you sit on), peek (needs side: left or right, around the frontmost window's edge), move_to (needs spot: center, top_left, top_right, bottom_left or bottom_right; optional monitor number), stand (leave a perch, a peek or the bed), go_to_bed (lie down on a bed where you stand). Answers ok, or one word: not_found, blocked, interrupted, busy, unsupported, timeout.","parameters":{"type":"object","properties":{"action":{"type":"string","enum":["sit_on_window","peek","move_to","stand","go_to_bed"]},"app":{"type":"string","minLength":1,"maxLength":256,"description":"For sit_on_window: the app name, as look at perch_targets lists it."},"side":{"type":"string","enum":["left","right"],"description":"For peek."},"spot":{"type":"string","enum":["center","top_left","top_right","bottom_left","bottom_right"],"description":"For move_to."},"monitor":{"type":"integer","minimum":0,"description":"For move_to: the display number; omitted keeps yours."}},"required":["action"],"additionalProperties":false}}},{"type":"function","function":{"name":"look","description":"Looks at your own state. at: body (your position, posture and what you are on, as JSON), perch_targets (windows you can sit on and peek edges, as JSON), or screen (a screenshot of a display; optional monitor, the same display number as body_action; omitted means your display; needs an image-capable model).","parameters":{"type":"object","properties":{"at":{"type":"string","enum":["body","perch_targets","screen"]},"monitor":{"type":"integer","minimum":0,"description":"For screen: the display number."}},"required":["at"],"additionalProperties":false}}}]`,
  ],
  [
    "Responses tools[]",
    String.raw`[{"type":"function","name":"generate_express","description":"Places an expression cue (face, body motion, voice tone) on your speech at the point of the call: call it where the feeling shows, before or between sentences. Every field is optional. It answers ok and needs no reply.","parameters":{"type":"object","properties":{"emotion_id":{"type":"string","enum":["neutral","happy","sad","angry","surprised","relaxed","shy","thinking"],"description":"Facial expression: neutral (calm, plain face), happy (smiling, glad), sad (downcast, sorry), angry (annoyed, cross), surprised (startled, amazed), relaxed (at ease, content), shy (bashful, embarrassed), thinking (pondering, unsure)."},"motion_id":{"type":"string","enum":["wave","nod","shake_head","bow","tilt_head","cheer","think","shrug","surprised_jump"],"description":"Body motion: wave (waves a hand), nod (nods yes), shake_head (shakes the head no), bow (bows politely), tilt_head (tilts the head, curious), cheer (cheers with both arms), think (hand to chin, thinking), shrug (shrugs), surprised_jump (jumps in surprise)."},"emotion_text":{"type":"string","description":"Voice tone in a few words (e.g. softly, cheerful, whispering)."},"caption":{"type":"string","description":"Free-text voice direction for the speech around the call."}},"additionalProperties":false},"strict":false},{"type":"function","name":"rate_relation","description":"Moves this character's relation toward the user or another open character by one small step, with the reason. Answers the band after the change (hostile, cold, neutral, warm, close).","parameters":{"type":"object","properties":{"toward":{"type":"string","enum":["user","Aoi (aoi)","Aoi (aoi2)","ユイ","user (character)"],"description":"user (the human) or another open character's name"},"delta":{"type":"integer","enum":[-2,-1,1,2],"description":"the step: -2, -1, 1 or 2"},"why":{"type":"string","maxLength":80,"description":"the reason, at most 80 characters; shown to the user, so write it for them"}},"required":["toward","delta","why"],"additionalProperties":false},"strict":false},{"type":"function","name":"address_character","description":"Names the character this reply is for, so that character receives a turn after the reply's playback. One call per reply.","parameters":{"type":"object","properties":{"to":{"type":"string","enum":["Aoi (aoi)","Aoi (aoi2)","ユイ","user (character)"],"description":"the name of the other open character this reply speaks to"}},"required":["to"],"additionalProperties":false},"strict":false},{"type":"function","name":"browser","description":"Runs your JavaScript against the ego lite browser on the user's computer, in this character's own task space of it. ego lite holds the user's sign-ins; reach and act on pages through its browser SDK. This description takes precedence over the guide.\n- code is the body of an async function: top-level await works, and a static import does not, so a module loads through await import().\n- task, screenshot, and every name starting __yui are reserved; variables start fresh on every call.\n- The injected task is the task space's handle: use it, do not call taskSpace(), and do not finish the space.\n- Observations go to console.log; the output is text.\n- await screenshot(page) attaches an image of the page's viewport. Images need an image-capable model. screenshot restores a minimized ego lite window before it captures.\n- A space the user took over fails with EGO_TASK_SPACE_NAME_IN_USE until the user hands it back in ego lite.\n- Error line numbers are 5 more than the line in code.\n- guide: true returns the full guide (send it without code).","parameters":{"type":"object","properties":{"code":{"type":"string","description":"The body of an async function, run after the client's prelude."},"guide":{"type":"boolean","description":"true returns the installed ego lite's guide instead of running code."}},"additionalProperties":false},"strict":false},{"type":"function","name":"body_action","description":"Moves your body on the user's desktop. action: sit_on_window (needs app: the app whose window you sit on), peek (needs side: left or right, around the frontmost window's edge), move_to (needs spot: center, top_left, top_right, bottom_left or bottom_right; optional monitor number), stand (leave a perch, a peek or the bed), go_to_bed (lie down on a bed where you stand). Answers ok, or one word: not_found, blocked, interrupted, busy, unsupported, timeout.","parameters":{"type":"object","properties":{"action":{"type":"string","enum":["sit_on_window","peek","move_to","stand","go_to_bed"]},"app":{"type":"string","minLength":1,"maxLength":256,"description":"For sit_on_window: the app name, as look at perch_targets lists it."},"side":{"type":"string","enum":["left","right"],"description":"For peek."},"spot":{"type":"string","enum":["center","top_left","top_right","bottom_left","bottom_right"],"description":"For move_to."},"monitor":{"type":"integer","minimum":0,"description":"For move_to: the display number; omitted keeps yours."}},"required":["action"],"additionalProperties":false},"strict":false},{"type":"function","name":"look","description":"Looks at your own state. at: body (your position, posture and what you are on, as JSON), perch_targets (windows you can sit on and peek edges, as JSON), or screen (a screenshot of a display; optional monitor, the same display number as body_action; omitted means your display; needs an image-capable model).","parameters":{"type":"object","properties":{"at":{"type":"string","enum":["body","perch_targets","screen"]},"monitor":{"type":"integer","minimum":0,"description":"For screen: the display number."}},"required":["at"],"additionalProperties":false},"strict":false}]`,
  ],
  [
    "generate_express, integer-like ids and one-value lists",
    `{"type":"object","properties":{"emotion_id":{"type":"string","enum":["10","2","a"],"description":"Facial expression: 10, 2 (two), a."},"motion_id":{"type":"string","enum":["1"],"description":"Body motion: 1."},"emotion_text":{"type":"string","enum":["9"],"description":"Voice tone tag: 9 = nine."},"caption":{"type":"string","description":"Free-text voice direction for the speech around the call."}},"additionalProperties":false}`,
  ],
  [
    "rate_relation, integer-like names",
    `{"type":"object","properties":{"toward":{"type":"string","enum":["user","10","2"],"description":"user (the human) or another open character's name"},"delta":{"type":"integer","enum":[-2,-1,1,2],"description":"the step: -2, -1, 1 or 2"},"why":{"type":"string","maxLength":80,"description":"the reason, at most 80 characters; shown to the user, so write it for them"}},"required":["toward","delta","why"],"additionalProperties":false}`,
  ],
];

describe("declared schemas", () => {
  it("covers every built case", () => {
    expect(DECLARED.map(([name]) => name)).toEqual(Object.keys(BUILT));
  });

  it.each(DECLARED)("%s is byte-identical to the pinned schema", (name, json) => {
    expect(JSON.stringify(BUILT[name]!())).toBe(json);
  });
});

describe("the declared schema as docs/client-tools.md states it", () => {
  const doc = readFileSync(join(import.meta.dirname, "../../../docs/client-tools.md"), "utf8");

  it("generate_express declares the table's parameters in its order, every one optional, nothing else", () => {
    const start = doc.search(/^\|\s*Parameter\s*\|\s*Schema\s*\|/m);
    const table = doc.slice(start, doc.indexOf("\n\n", start));
    const params = table
      .split("\n")
      .slice(2)
      .map((l) => l.split("|")[1]!.trim());
    expect(params).toEqual(["emotion_id", "motion_id", "emotion_text", "caption"]);
    expect(doc.slice(start)).toContain("Every parameter is optional and additionalProperties is false.");
    const p = createGenerateExpressTool(DEFAULT_VOCABULARY).parameters;
    expect(Object.keys(p.properties as object)).toEqual(params);
    expect(p.required).toBeUndefined();
    expect(p.additionalProperties).toBe(false);
  });

  it("browser declares code and guide, neither required, nothing else", () => {
    expect(doc).toContain("Neither argument is required, and additionalProperties is false.");
    const p = browser().parameters;
    expect(Object.keys(p.properties as object)).toEqual(["code", "guide"]);
    expect(p.required).toBeUndefined();
    expect(p.additionalProperties).toBe(false);
  });

  it("every tool declares additionalProperties false", () => {
    for (const t of registry()) expect(t.parameters.additionalProperties, t.name).toBe(false);
  });
});
