#!/usr/bin/env -S npx tsx
/** The `yui` command: the host and its subcommands. */

type Main = (argv: string[]) => Promise<number>;

// Each subcommand lives in its own module exporting `main(argv): Promise<number>`.
const commands: Record<string, string> = {
  chat: "../chat/cli.ts",
  serve: "../server/serve-cli.ts",
  speak: "../voice/speak-cli.ts",
  store: "../store/cli.ts",
  tools: "../chat/tools-cli.ts",
};

async function run(argv: string[]): Promise<number> {
  // No subcommand (or only options): `yui` starts the host.
  const [cmd, ...rest] = argv[0] === undefined || argv[0].startsWith("--") ? ["serve", ...argv] : argv;
  const path = cmd ? commands[cmd] : undefined;
  if (!path) {
    process.stderr.write(`usage: yui <${Object.keys(commands).join("|")}> [options]\n`);
    return 2;
  }
  const mod = (await import(new URL(path, import.meta.url).href)) as { main: Main };
  return mod.main(rest);
}

process.exitCode = await run(process.argv.slice(2));
