/**
 * The client's prelude (spec: client-tools.txt, "Prelude"): the script written to `ego-browser nodejs`'s stdin.
 * Its shape is byte-for-byte the spec's, so the backend's code starts on line 6 and error lines are code line + 5.
 */

/** The line offset between the backend's code and the script ego lite runs. */
export const CODE_LINE_OFFSET = 5;

/** The task-space name of a preset: yui-<presetId>. */
export function spaceName(presetId: string): string {
  return `yui-${presetId}`;
}

// The folder path sits inside a template literal: escape what would end it or interpolate.
function templateLiteralText(text: string): string {
  return text.replace(/[\\`$]/g, (c) => `\\${c}`);
}

/** Wraps the backend's code in the prelude, with the space, the screenshot folder and the deadline filled in. */
export function buildScript(opts: {
  space: string;
  shotFolder: string;
  deadlineMs: number;
  code: string;
}): string {
  // JSON.stringify yields a valid JS string literal, so a preset id cannot break out of the call.
  const space = JSON.stringify(opts.space);
  const folder = templateLiteralText(opts.shotFolder);
  const code = opts.code.endsWith("\n") ? opts.code : `${opts.code}\n`;
  return (
    `const __yuiDeadline = setTimeout(() => { console.error("[yui] deadline"); process.exit(124); }, ${Math.round(opts.deadlineMs)});\n` +
    "try {\n" +
    `  const task = await taskSpace(${space});\n` +
    "  let __yuiShot = 0;\n" +
    `  const screenshot = (page) => page.screenshot({ path: \`${folder}/\${String(++__yuiShot).padStart(3, "0")}.png\` });\n` +
    code +
    "} catch (e) {\n" +
    "  console.error(String(e?.stack ?? e));\n" +
    "  process.exit(1);\n" +
    "} finally {\n" +
    "  clearTimeout(__yuiDeadline);\n" +
    "}\n"
  );
}
