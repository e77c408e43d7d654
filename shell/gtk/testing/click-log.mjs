// Runs inside an xterm in the shell's tests: turns on xterm's mouse reporting and appends every report it
// receives to the file named by argv[2], one hex line per read, so a test knows a click reached the xterm.
import { appendFileSync, writeFileSync } from "node:fs";

const out = process.argv[2];
writeFileSync(out, "");
process.stdin.setRawMode(true);
process.stdout.write("\x1b[?1000h\x1b[2J\x1b[Hclick-log: waiting for clicks\r\n");
process.stdin.on("data", (d) => appendFileSync(out, `${d.toString("hex")}\n`));
