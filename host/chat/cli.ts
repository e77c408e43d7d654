/**
 * `yui chat`: a headless client for scripting and black-box tests. Runs the same engine and the real registry
 * of the given window, one turn per --message, and prints one JSON object per line as things happen.
 */
import { parseArgs } from "node:util";
import type { CharacterAddressed } from "../../src/app/addressing/addressing.ts";
import type { Preset } from "../../src/app/presets/preset.ts";
import { activePresetId, getPreset, type KeyValue, openPet } from "../../src/app/presets/presets.ts";
import {
  type CharacterSession,
  createCharacterSession,
  type SessionBackend,
  type TurnResult,
} from "../../src/app/session/character-session.ts";
import { switchStates } from "../../src/app/switches.ts";
import { relationsFromStore } from "../../src/app/tools/relation.ts";
import { createWindowTools, WINDOW_KINDS, type WindowKind } from "../../src/app/tools/window-tools.ts";
import { executorOverBridge } from "../../src/io/bridge/body-executor.ts";
import { createPushClient, type HelloInfo, type PushConnectionEvent } from "../../src/io/chat/push/client.ts";
import { createChatEngine } from "../../src/io/chat/stream/engine.ts";
import type { EngineEvent } from "../../src/io/chat/stream/types.ts";
import { registerBrowserCommands } from "../browser/commands.ts";
import { createCommandTable } from "../commands.ts";
import { storedBackendKey } from "../keys.ts";
import { hostSecretHeaders } from "../launch-secret.ts";
import { dataDir } from "../paths.ts";
import { nodeConnect } from "../push-socket.ts";
import { openStore } from "../store/store.ts";
import { fileVocabulary } from "../vocabulary-source.ts";
import { bridgeUrl, connectHostBridge, type HostBridge } from "./host-bridge.ts";

export const CHAT_USAGE = `usage: yui chat --base-url URL --transport chat|responses [options] --message TEXT [--message TEXT ...]
       yui chat --transport push --push-url URL [options] --message TEXT [--message TEXT ...]

Runs one user turn per --message, in order, in one conversation, and prints one JSON object per line:
  {"type":"request","n":1,"url":"...","body":{...}}       every HTTP request, with its full JSON body
                                                         (push: every turn frame sent)
  {"type":"text","delta":"..."}                          each spoken text fragment
  {"type":"cue","call_id":"...","name":"...","arguments":{...}}   when a cue plays
  {"type":"tool_call","call_id":"...","name":"...","arguments":{...}|null,"result":...}   when the client answers
  {"type":"tool_status","call_id":"...","name":"...","status":"running"|"done"}         backend-run tools
  {"type":"turn_end","outcome":"spoken"|"silent"|"error"|"stopped","text":"...","round_trips":N,
   "response_id":...,"error":...,"unanswered":[...]}
                                                         plus "incomplete":{"reason":"..."} when the reply was
                                                         cut off (Responses: max_output_tokens, content_filter)
Exit status 0 when every turn ended spoken or silent, 1 otherwise, 2 for bad options.
Ctrl-C (SIGINT) stops: the turn in flight ends as stopped, no further request goes out (the request lines are
the requests sent and round_trips counts the round trips sent), and no further --message runs.

Options:
  --base-url URL          OpenAI-compatible base URL (default: $OPENAI_BASE_URL, else the preset's)
  --transport T           chat | responses | push (default: the preset's)
  --push-url URL          the push backend's ws:// or wss:// URL (docs/push-transport.md); the API key is
                          sent as a bearer token
  --model M               model name (default: $OPENAI_MODEL, else the preset's, else none sent)
  --api-key K             API key (default: $OPENAI_API_KEY)
  --window W              main | pet | bound | browser | phone (default: main); decides the declared tools
  --preset ID             the character (default: the active preset)
  --vocabulary FILE       expression vocabulary JSON (default: vocabulary.json in the data directory);
                          re-read before every turn
  --broker-base-url URL   deprecated Expression Broker (Responses only; removed in v0.6.0)
  --idle-timeout MS       end a turn whose stream sends nothing for this long (default 120000)
  --message TEXT          one user turn (repeatable, at least one)
  --with ID               another character, opened as a pet window (repeatable); every line then carries
                          "preset", a reply that addresses a character prints {"type":"character_addressed",...}
                          and gives that character its turn, up to rate_limit.addressed_chain_max
  --host URL              a running YUI host (the desktop app, such as http://127.0.0.1:8777/): main's
                          body_action and look reach the avatar executor main's desktop window holds there
                          (without it they answer unsupported)
  --help                  this text
The store lives in the data directory ($YUI_DATA_DIR overrides it).
`;

/** Runs `yui chat` with argv; returns the exit status. */
export async function main(argv: string[]): Promise<number> {
  let values: Options;
  try {
    values = parse(argv).values;
  } catch (e) {
    process.stderr.write(`yui chat: ${(e as Error).message}\n\n${CHAT_USAGE}`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(CHAT_USAGE);
    return 0;
  }
  const fail = (msg: string) => {
    process.stderr.write(`yui chat: ${msg}\n`);
    return 2;
  };
  const messages = values.message ?? [];
  if (!messages.length) return fail("give at least one --message");
  const kind = (values.window ?? "main") as WindowKind;
  if (!WINDOW_KINDS.includes(kind)) return fail(`--window must be one of ${WINDOW_KINDS.join(", ")}`);

  if (values.host) {
    try {
      bridgeUrl(values.host);
    } catch (e) {
      return fail((e as Error).message);
    }
  }

  const store = openStore();
  const sessions = new Map<string, { session: CharacterSession; out: (e: EngineEvent) => void }>();
  let hostBridge: HostBridge | null = null;
  try {
    if (values.host) {
      try {
        // The running host's launch secret, from its file in this data directory (docs/app.md "Security model").
        hostBridge = await connectHostBridge(values.host, {
          headers: hostSecretHeaders(dataDir(), values.host),
        });
      } catch (e) {
        process.stderr.write(`yui chat: ${(e as Error).message}\n`);
        return 1;
      }
    }
    const executor = hostBridge ? executorOverBridge(hostBridge.invoke) : null;
    const mainId = values.preset ?? activePresetId(store);
    const others = values.with ?? [];
    for (const id of [mainId, ...others]) if (!getPreset(store, id)) return fail(`unknown preset ${id}`);
    if (new Set([mainId, ...others]).size !== others.length + 1)
      return fail("each character may appear once");
    // The other characters open as pet windows, so every character's enums list the others.
    for (const id of others) openPet(store, id, "cli");
    const idle = values["idle-timeout"] ? Number(values["idle-timeout"]) : undefined;
    if (idle !== undefined && !(idle > 0)) return fail("--idle-timeout must be a positive number of ms");

    const commands = createCommandTable();
    await registerBrowserCommands(commands.register, () => switchStates(store).browser);
    const vocabulary = fileVocabulary(values.vocabulary);
    const multi = others.length > 0;
    const queue: CharacterAddressed[] = [];

    for (const [i, id] of [mainId, ...others].entries()) {
      const preset = getPreset(store, id)!;
      const windowKind = i === 0 ? kind : "pet";
      const out = (e: EngineEvent | PushConnectionEvent) => print(e, multi ? preset.id : undefined);
      const backend = backendFor(values, preset, store, idle, out);
      if (typeof backend === "string") return fail(backend);
      const session = createCharacterSession({
        presetId: preset.id,
        kind: windowKind,
        kv: store,
        backend,
        vocabulary,
        windowTools: (addressing) =>
          createWindowTools({
            kv: store,
            kind: windowKind,
            presetId: preset.id,
            addressing,
            invoke: commands.run,
            relations: relationsFromStore(store),
            avatarExecutor: () => executor,
          }),
        emitAddressed: (ev) => queue.push(ev),
      });
      // A push connection opens now, before the first turn.
      session.warm();
      sessions.set(preset.id, { session, out });
    }
    // A message from the user wakes her, or interrupts her bed's setup (docs/body.md).
    const poke =
      kind === "main" && hostBridge ? () => hostBridge!.invoke("body_poke", {}).then(() => {}) : null;
    const ok = await converse(sessions, mainId, messages, queue, { multi, poke });
    return ok ? 0 : 1;
  } finally {
    hostBridge?.close();
    for (const { session } of sessions.values()) session.close();
    store.close();
  }
}

/**
 * The backend of one character, from the command line's settings over the preset's (built once), or what is
 * wrong with them.
 */
function backendFor(
  values: Options,
  preset: Preset,
  store: KeyValue,
  idle: number | undefined,
  out: (e: EngineEvent | PushConnectionEvent) => void,
): string | ((p: Preset, hello: () => Promise<HelloInfo>) => SessionBackend) {
  const transport = values.transport ?? preset.backend.transport;
  if (transport !== "chat" && transport !== "responses" && transport !== "push") {
    return "--transport must be chat, responses or push";
  }
  const baseUrl = values["base-url"] || process.env.OPENAI_BASE_URL || preset.backend.base_url;
  const pushUrl = values["push-url"] ?? preset.backend.push_url;
  if (transport === "push" && !pushUrl) return "give --push-url for the push transport";
  if (transport !== "push" && !baseUrl) return "give --base-url (or set OPENAI_BASE_URL)";
  // The stored key only toward the address it was saved for (host/keys.ts).
  const destination = (transport === "push" ? pushUrl : baseUrl) ?? "";
  const apiKey =
    values["api-key"] || process.env.OPENAI_API_KEY || storedBackendKey(store, preset, destination);
  return (_p, hello) => {
    if (transport !== "push") {
      return createChatEngine({
        transport,
        baseUrl: baseUrl!,
        apiKey,
        model: values.model || process.env.OPENAI_MODEL || preset.backend.model,
        brokerBaseUrl: values["broker-base-url"] ?? preset.backend.broker_base_url,
        instructions: preset.persona || undefined,
        idleTimeoutMs: idle,
      });
    }
    const p = createPushClient({
      url: pushUrl!,
      token: apiKey,
      connect: nodeConnect,
      idleMs: idle,
      hello,
      onEvent: (e) => {
        if (e.type === "connection" && e.state === "closed")
          process.stderr.write(`yui chat: push connection closed: ${e.error}\n`);
        else if (e.type === "protocol_error")
          process.stderr.write(`yui chat: push backend: ${e.code}: ${e.message}\n`);
        // A turn the backend started on its own prints like any other.
        else if (e.type !== "connection") out(e);
      },
    });
    p.start();
    return {
      runTurn: (input) => p.runTurn({ ...input, context: input.context ?? "" }),
      // The tools hello declared: the turn sender describes these instead of building a list push never sends.
      declaredTools: () => p.declaredTools(),
      close: () => p.close(),
    };
  };
}

/**
 * Runs one user turn per message with the main character, and after each the characters' conversation: each
 * addressed reply gives the named character a turn, up to the chain cap. Ctrl-C stops it. True when every turn
 * ended spoken or silent.
 */
async function converse(
  sessions: Map<string, { session: CharacterSession; out: (e: EngineEvent) => void }>,
  mainId: string,
  messages: string[],
  queue: CharacterAddressed[],
  o: { multi: boolean; poke: (() => Promise<void>) | null },
): Promise<boolean> {
  const stop = new AbortController();
  process.once("SIGINT", () => stop.abort());
  let ok = true;
  const judge = ({ end }: TurnResult) => {
    if (end && end.outcome !== "spoken" && end.outcome !== "silent") ok = false;
  };
  const main = sessions.get(mainId)!;
  for (const text of messages) {
    await o.poke?.().catch(() => {});
    judge(await main.session.userTurn(text, { signal: stop.signal, onEvent: main.out }));
    while (queue.length && !stop.signal.aborted) {
      const event = queue.shift()!;
      const target = sessions.get(event.to.id);
      if (o.multi) print({ type: "character_addressed", ...event }, undefined);
      const incoming = { text: event.text, from: event.from.name };
      if (target)
        judge(
          await target.session.addressedTurn(event, incoming, { signal: stop.signal, onEvent: target.out }),
        );
    }
    if (stop.signal.aborted) break;
  }
  return ok;
}

type Options = ReturnType<typeof parse>["values"];

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    strict: true,
    options: {
      "base-url": { type: "string" },
      transport: { type: "string" },
      model: { type: "string" },
      "api-key": { type: "string" },
      window: { type: "string" },
      preset: { type: "string" },
      vocabulary: { type: "string" },
      "broker-base-url": { type: "string" },
      "push-url": { type: "string" },
      "idle-timeout": { type: "string" },
      message: { type: "string", multiple: true },
      with: { type: "string", multiple: true },
      host: { type: "string" },
      help: { type: "boolean" },
    },
  });
}

/** Writes one event as a JSON line, in the CLI's documented shape; `preset` names the character in multi-character runs. */
export function print(e: EngineEvent | { type: string }, preset: string | undefined): void {
  let line: Record<string, unknown> = { ...e };
  // turn_end prints its documented fields: the typed failure is for windows, its message is `error`.
  if (e.type === "turn_end") delete line.failure;
  if (e.type === "cue") {
    const c = e as Extract<EngineEvent, { type: "cue" }>;
    line = { type: "cue", call_id: c.call_id, name: c.name, arguments: c.arguments };
  }
  if (preset) line = { preset, ...line };
  process.stdout.write(`${JSON.stringify(line)}\n`);
}
