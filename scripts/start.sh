#!/usr/bin/env bash
# The README's main command (`npm start`): system packages, node packages, the build, then YUI: on a
# graphical Linux session with the shell's packages, and on macOS, the desktop app (`yui desktop`), else the browser build
# (`yui serve`). `--browser` forces the browser build. Options pass through: --port <n>, --no-open (browser).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-system.sh
bash scripts/setup-node.sh
bash scripts/build.sh
mode=desktop
args=()
for a in "$@"; do
  if [ "$a" = "--browser" ]; then mode=browser; else args+=("$a"); fi
done
if [ "$mode" = desktop ]; then
  case "$(uname -s)" in
    Darwin) ;; # the Electron shell (docs/electron.md)
    Linux)
      if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
        mode=browser
      elif ! command -v gjs >/dev/null 2>&1; then
        echo "[start] gjs is missing (the desktop shell's runtime): starting the browser build" >&2
        mode=browser
      fi
      ;;
    *) mode=browser ;; # Windows: `npx tsx host/bin/yui.ts desktop` from a terminal (docs/electron.md)
  esac
fi
# ${a[@]+"${a[@]}"}: an empty array under `set -u` on macOS's bash 3.2.
if [ "$mode" = desktop ]; then
  rest=()
  for a in ${args[@]+"${args[@]}"}; do [ "$a" = "--no-open" ] || rest+=("$a"); done
  exec npx tsx host/bin/yui.ts desktop ${rest[@]+"${rest[@]}"}
fi
exec npx tsx host/bin/yui.ts serve ${args[@]+"${args[@]}"}
