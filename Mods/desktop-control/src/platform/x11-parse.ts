// Parsers for the standard X11 utilities' output (xprop -notype, xrandr --listmonitors, xprintidle).
// Pure functions, tested on output recorded from real runs under Xvfb + openbox.

export {
  parseAtoms,
  parseCardinals,
  parseString,
  parseWindowIds,
  parseWmClass,
  parseXprop,
} from "@yui/mod-kit/x11";

/** A display's rectangle on the X screen. */
export interface Monitor {
  name: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The monitors of `xrandr --listmonitors` (" 0: +*DP-1 1920/508x1200/318+0+0  DP-1"), in its order. */
export function parseMonitors(stdout: string): Monitor[] {
  const out: Monitor[] = [];
  for (const line of stdout.split("\n")) {
    const m = /^\s*\d+:\s+[+*]*(\S+)\s+(\d+)\/\d+x(\d+)\/\d+([+-]\d+)([+-]\d+)/.exec(line);
    if (m) out.push({ name: m[1]!, width: +m[2]!, height: +m[3]!, x: +m[4]!, y: +m[5]! });
  }
  return out;
}

/** xprintidle's milliseconds; throws on anything else. */
export function parseIdleMs(stdout: string): number {
  const s = stdout.trim();
  if (!/^\d+$/.test(s)) throw new Error(`xprintidle printed '${s}'`);
  return Number(s);
}
