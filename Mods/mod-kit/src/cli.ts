import { quoteInput } from "./quote.ts";

/** Parses --port N / --port=N from argv; throws an Error with a clear message on a bad value. */
export function parsePort(argv: string[], defaultPort: number): number {
  let raw: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--port") {
      raw = argv[i + 1];
      if (raw === undefined || raw.startsWith("--")) throw new Error("--port needs a value (0-65535)");
      i++;
    } else if (arg.startsWith("--port=")) {
      raw = arg.slice("--port=".length);
    }
  }
  if (raw === undefined) return defaultPort;
  // Digits only: Number("0x10") or Number(" 80 ") would silently accept odd spellings.
  if (!/^\d{1,5}$/.test(raw) || Number(raw) > 65535) {
    throw new Error(`--port must be an integer from 0 to 65535, got '${quoteInput(raw)}'`);
  }
  return Number(raw);
}

/** Reads --port N (and --port=N) from argv, else the default; exits with a clear message on a bad value. */
export function portFromArgs(argv: string[], defaultPort: number): number {
  try {
    return parsePort(argv, defaultPort);
  } catch (err) {
    process.stderr.write(`error: ${(err as Error).message}\n`);
    process.exit(2);
  }
}
