#!/usr/bin/env -S npx tsx
/** The `yui` command: the host and its subcommands. */

type Main = (argv: string[]) => Promise<number>;

// Each subcommand lives in its own module exporting `main(argv): Promise<number>` and its usage text
// (an exported string named `…USAGE`), which `yui <command> --help` prints.
const commands: Record<string, string> = {
  chat: "../chat/cli.ts",
  desktop: "../desktop/desktop-cli.ts",
  listen: "../voice/listen-cli.ts",
  serve: "../server/serve-cli.ts",
  speak: "../voice/speak-cli.ts",
  store: "../store/cli.ts",
  tools: "../chat/tools-cli.ts",
};

/** `yui --help`. */
const USAGE = `usage: yui [<command>] [options]

  yui [serve] [--port N] [--no-open]   the host and the browser build in your browser (the default)
  yui desktop [--port N]               the host and the desktop shell: the characters on your desktop
  yui chat | store | tools | …         see yui <command> --help

commands: ${Object.keys(commands).join(", ")}
`;

const isHelp = (a: string | undefined) => a === "--help" || a === "-h";

async function run(argv: string[]): Promise<number> {
  if (isHelp(argv[0]) || argv[0] === "help") {
    process.stdout.write(USAGE);
    return 0;
  }
  // No subcommand (or only options): `yui` starts the host.
  const [cmd, ...rest] = argv[0] === undefined || argv[0].startsWith("--") ? ["serve", ...argv] : argv;
  const path = cmd ? commands[cmd] : undefined;
  if (!path) {
    process.stderr.write(`usage: yui <${Object.keys(commands).join("|")}> [options]\n`);
    return 2;
  }
  const mod = (await import(new URL(path, import.meta.url).href)) as { main: Main } & Record<string, unknown>;
  const usage = Object.entries(mod).find(([k, v]) => k.endsWith("USAGE") && typeof v === "string")?.[1];
  if (rest.some(isHelp) && typeof usage === "string") {
    process.stdout.write(usage.endsWith("\n") ? usage : `${usage}\n`);
    return 0;
  }
  return mod.main(rest);
}

process.exitCode = await run(process.argv.slice(2));
