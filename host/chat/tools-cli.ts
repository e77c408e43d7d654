/**
 * `yui tools`: prints the exact JSON the client would declare for a window and transport (tools[] for Chat
 * Completions and Responses, hello.tools for push), acting as the desktop app.
 */
import { parseArgs } from "node:util";
import { Addressing } from "../../src/app/addressing/addressing.ts";
import { activePresetId, getPreset } from "../../src/app/presets/presets.ts";
import { relationsFromStore } from "../../src/app/tools/relation.ts";
import { createWindowTools, WINDOW_KINDS, type WindowKind } from "../../src/app/tools/window-tools.ts";
import { buildTurnRegistry } from "../../src/app/turn/wire-dispatcher.ts";
import { helloTools } from "../../src/io/chat/push/client.ts";
import { declareTools } from "../../src/io/chat/tools/declare.ts";
import { openStore } from "../store/store.ts";
import { fileVocabulary } from "../vocabulary-source.ts";

export const TOOLS_USAGE = `usage: yui tools --window main|pet|bound|browser|phone --transport chat|responses|push [--vocabulary FILE] [--preset ID]

Prints the JSON the client declares: tools[] on chat and responses, hello.tools on push.
`;

/** Runs `yui tools`; returns the exit status. */
export async function main(argv: string[]): Promise<number> {
  let values: { window?: string; transport?: string; vocabulary?: string; preset?: string; help?: boolean };
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      options: {
        window: { type: "string" },
        transport: { type: "string" },
        vocabulary: { type: "string" },
        preset: { type: "string" },
        help: { type: "boolean" },
      },
    }).values;
  } catch (e) {
    process.stderr.write(`yui tools: ${(e as Error).message}\n\n${TOOLS_USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(TOOLS_USAGE);
    return 0;
  }
  const kind = (values.window ?? "main") as WindowKind;
  const transport = values.transport ?? "chat";
  if (!WINDOW_KINDS.includes(kind) || !["chat", "responses", "push"].includes(transport)) {
    process.stderr.write(TOOLS_USAGE);
    return 2;
  }
  const store = openStore();
  try {
    const presetId = values.preset ?? activePresetId(store);
    const preset = getPreset(store, presetId);
    if (!preset) {
      process.stderr.write(`yui tools: unknown preset ${presetId}\n`);
      return 2;
    }
    const tools = createWindowTools({
      kv: store,
      kind,
      presetId,
      addressing: new Addressing({ self: { id: preset.id, name: preset.name } }),
      invoke: async () => {
        throw new Error("yui tools runs no command");
      },
      relations: relationsFromStore(store),
    });
    const registry = await buildTurnRegistry({
      vocabulary: fileVocabulary(values.vocabulary),
      windowTools: tools,
    });
    const declared =
      transport === "push" ? helloTools(registry) : declareTools(registry, transport as "chat" | "responses");
    process.stdout.write(`${JSON.stringify(declared, null, 2)}\n`);
    return 0;
  } finally {
    store.close();
  }
}
