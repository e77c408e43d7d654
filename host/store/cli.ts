/**
 * `yui store get|set|list|delete`: the store from the shell, through the same validation as the app.
 * YUI_DATA_DIR picks the store like for every yui command (docs/store.md).
 */
import { dataDir } from "../paths.ts";
import { registeredKeys, StoreError } from "./schema.ts";
import { openStore } from "./store.ts";

export const USAGE = `usage: yui store get KEY
       yui store set KEY JSON
       yui store delete KEY
       yui store list [--all]
`;

export interface CliIo {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: NodeJS.ProcessEnv;
}

const processIo: CliIo = {
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  env: process.env,
};

/** Runs one `yui store` command; returns the exit code (0 ok, 1 refused, 2 usage). */
export async function main(argv: string[], io: CliIo = processIo): Promise<number> {
  const [verb, ...args] = argv;
  const usage = () => {
    io.stderr(USAGE);
    return 2;
  };
  if (verb === "list" && args.length === 1 && args[0] === "--all") {
    for (const spec of registeredKeys()) io.stdout(`${spec.pattern}\t${spec.doc}\n`);
    return 0;
  }
  const shapes: Record<string, number> = { get: 1, set: 2, delete: 1, list: 0 };
  if (!verb || shapes[verb] === undefined || args.length !== shapes[verb]) return usage();

  let store: ReturnType<typeof openStore> | undefined;
  try {
    store = openStore(dataDir(io.env));
    const [key = "", json = ""] = args;
    switch (verb) {
      case "get": {
        const value = store.get(key);
        if (value === undefined) throw new StoreError(`unknown key ${key}`);
        io.stdout(`${JSON.stringify(value)}\n`);
        return 0;
      }
      case "set": {
        let value: unknown;
        try {
          value = JSON.parse(json);
        } catch (err) {
          throw new StoreError(`the value for ${key} is not JSON: ${(err as Error).message}`);
        }
        store.set(key, value, "cli");
        return 0;
      }
      case "delete":
        if (!store.delete(key, "cli")) throw new StoreError(`${key} holds no stored value`);
        return 0;
      default:
        for (const k of store.list()) io.stdout(`${k}\n`);
        return 0;
    }
  } catch (err) {
    if (err instanceof StoreError) {
      io.stderr(`yui store: ${err.message}\n`);
      return 1;
    }
    io.stderr(`yui store: ${(err as Error).message ?? String(err)}\n`);
    return 1;
  } finally {
    store?.close();
  }
}
