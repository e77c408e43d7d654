/**
 * The host's command table: what a window invokes over the bridge (Tauri's invoke), by name. The names, their
 * arguments and their answers are the contract's (`COMMANDS`, src/protocol/commands.ts): the table parses a
 * call's arguments with its command's schema before the handler runs (`invalid arguments: …` otherwise), so a
 * handler gets them typed, and a handler must answer its command's answer type.
 */
import {
  type CommandAnswer,
  type CommandArgs,
  type CommandName,
  type ParsedCommandArgs,
  parseCommandArgs,
} from "../src/protocol/commands.ts";

export interface CommandOptions {
  /** Aborts when the caller stopped waiting. */
  signal?: AbortSignal;
}
export type CommandHandler<C extends CommandName = CommandName> = (
  args: ParsedCommandArgs<C>,
  opts?: CommandOptions,
) => Promise<CommandAnswer<C>>;

export interface CommandTable {
  register<C extends CommandName>(name: C, handler: CommandHandler<C>): void;
  /** Runs a command with arguments from outside (a window's frame); throws for an unknown name or bad arguments. */
  invoke(name: string, args: unknown, opts?: CommandOptions): Promise<unknown>;
  /** Runs a command in this process (`yui chat`), typed as over the bridge. */
  run<C extends CommandName>(name: C, args: CommandArgs<C>, opts?: CommandOptions): Promise<CommandAnswer<C>>;
  names(): string[];
}

/** Creates an empty command table. */
export function createCommandTable(): CommandTable {
  const handlers = new Map<
    string,
    { name: CommandName; run: (args: never, opts?: CommandOptions) => Promise<unknown> }
  >();
  const invoke = async (name: string, args: unknown, opts?: CommandOptions) => {
    const h = handlers.get(name);
    if (!h) throw new Error(`unknown command: ${name}`);
    return h.run(parseCommandArgs(h.name, args) as never, opts);
  };
  return {
    register(name, handler) {
      if (handlers.has(name)) throw new Error(`command ${name} is already registered`);
      handlers.set(name, { name, run: handler });
    },
    invoke,
    // The handler registered under `name` answers CommandAnswer<C> (register's type).
    run: (name, args, opts) => invoke(name, args, opts) as Promise<never>,
    names: () => [...handlers.keys()].sort(),
  };
}
