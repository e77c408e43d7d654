/**
 * `yui listen`: transcribes one WAV file with the device's listening engine (docs/voice.md#yui-listen). The
 * headless way to check listening, as `yui speak` is for the voice.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { LISTEN_ENGINES, type ListenEngineId } from "../../src/protocol/listen.ts";
import { dataDir } from "../paths.ts";
import { openStore } from "../store/store.ts";
import { resolveListen, transcribe } from "./transcribe.ts";

export const LISTEN_USAGE = `usage: yui listen --in FILE.wav [--engine local|openai]

Transcribes the speech in FILE.wav (PCM WAV, any rate; mixed down to 16 kHz mono) with the listening engine
(the listening settings' engine, else the local engine: pocketsphinx) and prints one JSON line:
  {"engine":"local","text":"…","audio_ms":N,"transcribe_ms":N}
Exit status 1 with a message when the engine is missing or unreachable, 2 for bad options.

Options:
  --in FILE       the WAV file
  --engine E      local or openai (default: the listening settings' engine)
The store lives in the data directory ($YUI_DATA_DIR overrides it).
`;

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let v: Record<string, string | boolean | undefined>;
  try {
    v = parseArgs({
      args: argv,
      options: { in: { type: "string" }, engine: { type: "string" }, help: { type: "boolean" } },
      strict: true,
    }).values;
  } catch (e) {
    process.stderr.write(`yui listen: ${(e as Error).message}\n\n${LISTEN_USAGE}`);
    return 2;
  }
  if (v.help) {
    process.stdout.write(LISTEN_USAGE);
    return 0;
  }
  const engine = v.engine as string | undefined;
  if (
    typeof v.in !== "string" ||
    !v.in ||
    (engine && !(LISTEN_ENGINES as readonly string[]).includes(engine))
  ) {
    process.stderr.write(`yui listen: --in FILE is required; --engine is local or openai\n\n${LISTEN_USAGE}`);
    return 2;
  }
  let wav: Buffer;
  try {
    wav = readFileSync(v.in);
  } catch (e) {
    process.stderr.write(`yui listen: cannot read ${v.in}: ${(e as Error).message}\n`);
    return 1;
  }
  const store = openStore(dataDir(env));
  try {
    const resolved = resolveListen(store, env, engine as ListenEngineId | undefined);
    process.stdout.write(`${JSON.stringify(await transcribe(resolved, wav))}\n`);
    return 0;
  } catch (e) {
    process.stderr.write(`yui listen: ${(e as Error).message}\n`);
    return 1;
  } finally {
    store.close();
  }
}
