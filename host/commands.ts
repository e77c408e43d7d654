/** The host's command table: what a window invokes over the bridge (Tauri's invoke), by name. */

export interface CommandOptions {
  /** Aborts when the caller stopped waiting. */
  signal?: AbortSignal;
}
export type CommandHandler = (args: unknown, opts?: CommandOptions) => Promise<unknown>;

export interface CommandTable {
  register(name: string, handler: CommandHandler): void;
  /** Runs a command; throws for an unknown name. */
  invoke(name: string, args: unknown, opts?: CommandOptions): Promise<unknown>;
  names(): string[];
}

/** Creates an empty command table. */
export function createCommandTable(): CommandTable {
  const handlers = new Map<string, CommandHandler>();
  return {
    register(name, handler) {
      if (handlers.has(name)) throw new Error(`command ${name} is already registered`);
      handlers.set(name, handler);
    },
    async invoke(name, args, opts) {
      const h = handlers.get(name);
      if (!h) throw new Error(`unknown command: ${name}`);
      return h(args, opts);
    },
    names: () => [...handlers.keys()].sort(),
  };
}
