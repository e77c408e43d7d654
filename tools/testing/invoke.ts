/** Test support: a bridge invoke that answers from a script and records the commands it was given. */
import type { BridgeInvoke } from "../../src/io/bridge/client.ts";
import type { CommandName } from "../../src/protocol/commands.ts";

/**
 * A BridgeInvoke whose answers come from `answer` (null by default), unchecked: a test's stand-in for the host,
 * which answers only what the test needs. `calls` lists each command with its arguments.
 */
export function scriptedInvoke(answer: (command: CommandName, args: unknown) => unknown = () => null) {
  const calls: [CommandName, unknown][] = [];
  const invoke = (async (command: CommandName, args: unknown) => {
    calls.push([command, args]);
    return answer(command, args);
  }) as BridgeInvoke;
  return { invoke, calls };
}
