// Pure parsers for the values `xprop -notype` prints, shared by desktop-control's X11 backend and the
// host's window model (host/x11). Tested there, on output recorded from real runs under Xvfb + openbox.

/** Splits `xprop -notype` output into property → raw value; a property xprop did not find maps to null. */
export function parseXprop(stdout: string): Map<string, string | null> {
  const props = new Map<string, string | null>();
  for (const line of stdout.split("\n")) {
    const m = /^([A-Za-z0-9_]+)(?:\s*=\s?|:\s*)(.*)$/.exec(line);
    if (!m) continue;
    const [, name, rest] = m as unknown as [string, string, string];
    props.set(name, rest.trim() === "not found." ? null : rest);
  }
  return props;
}

/** Window ids in a WINDOW-typed value ("window id # 0x40000a, 0x60000c"); 0x0 means none and is dropped. */
export function parseWindowIds(value: string | null | undefined): string[] {
  return (value?.match(/0x[0-9a-fA-F]+/g) ?? []).filter((id) => Number.parseInt(id, 16) !== 0);
}

/** Numbers in a CARDINAL-typed value ("1, 1, 20, 5"). */
export function parseCardinals(value: string | null | undefined): number[] {
  return (value?.match(/\d+/g) ?? []).map(Number);
}

/** Atom names in an ATOM-typed value ("_NET_WM_STATE_ABOVE, _NET_WM_STATE_SKIP_TASKBAR"). */
export function parseAtoms(value: string | null | undefined): string[] {
  return value?.match(/[A-Z_][A-Z0-9_]*/g) ?? [];
}

// xprop prints a control byte (and, outside a UTF-8 locale, any non-ASCII byte) as \ooo octal.
function unescapeOctal(s: string): string {
  if (!/\\[0-7]{3}/.test(s)) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; ) {
    const oct = /^\\([0-7]{3})/.exec(s.slice(i, i + 4));
    if (oct) {
      bytes.push(Number.parseInt(oct[1]!, 8));
      i += 4;
    } else {
      const cp = s.codePointAt(i)!;
      bytes.push(...Buffer.from(String.fromCodePoint(cp), "utf8"));
      i += cp > 0xffff ? 2 : 1;
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** The text of a one-string value (WM_NAME, _NET_WM_NAME); null when absent. xprop does not escape
 *  quotes inside the string, so everything between the first and the last quote is the text. */
export function parseString(value: string | null | undefined): string | null {
  if (value == null) return null;
  const first = value.indexOf('"');
  const last = value.lastIndexOf('"');
  if (first < 0 || last <= first) return null;
  return unescapeOctal(value.slice(first + 1, last));
}

/** WM_CLASS's instance and class ("xterm", "XTerm"); null when absent or malformed. */
export function parseWmClass(value: string | null | undefined): { instance: string; cls: string } | null {
  const all = parseString(value);
  if (all === null) return null;
  const sep = all.indexOf('", "');
  if (sep < 0) return { instance: all, cls: all };
  return { instance: all.slice(0, sep), cls: all.slice(sep + 4) };
}
