// Local-calendar helpers: the witness log is one file per local day and its times carry the local
// UTC offset, so a reader in another zone still places every line exactly.

const pad = (n: number, w = 2): string => String(Math.abs(n)).padStart(w, "0");

/** The local calendar day of `d` as YYYY-MM-DD (the witness file's name). */
export function dayKey(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}

/** `d` as local ISO 8601 with its offset, e.g. 2026-11-30T09:15:02.123+01:00 (ms dropped when `seconds`). */
export function localIso(d: Date, seconds = false): string {
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? "+" : "-";
  const frac = seconds ? "" : `.${pad(d.getMilliseconds(), 3)}`;
  return (
    `${dayKey(d)}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}${frac}` +
    `${sign}${pad(Math.trunc(off / 60))}:${pad(off % 60)}`
  );
}

/** Local midnight starting the day `key` and the next local midnight; undefined for a non-date. */
export function dayBounds(key: string): { start: Date; end: Date } | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(key);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const start = new Date(y, mo - 1, d);
  // Date rolls 2026-02-30 over to March; a key that does not round-trip is no calendar date.
  if (dayKey(start) !== key) return undefined;
  // Constructing the next day by calendar (not +24 h) keeps DST days 23 or 25 hours long.
  return { start, end: new Date(y, mo - 1, d + 1) };
}

/** The day key `days` calendar days before the day of `d`. */
export function daysBefore(d: Date, days: number): string {
  return dayKey(new Date(d.getFullYear(), d.getMonth(), d.getDate() - days));
}
