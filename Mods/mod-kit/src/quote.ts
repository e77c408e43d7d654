/** How many characters of a bad input an error text quotes unless told otherwise. */
export const QUOTE_MAX = 200;

/**
 * A bad input as an error text quotes it: whole when it has at most `max` characters, else its first
 * `max` characters, `…`, and how long it really was (`abc…(1048576 characters)`), so a 1 MB path or
 * name never comes back whole. The cut never splits a surrogate pair.
 */
export function quoteInput(value: string, max = QUOTE_MAX): string {
  if (value.length <= max) return value;
  let end = max;
  const last = value.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--; // a high surrogate whose pair lies past the cut
  return `${value.slice(0, end)}…(${value.length} characters)`;
}
