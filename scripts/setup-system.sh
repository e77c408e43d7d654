#!/usr/bin/env bash
# Installs the Debian packages YUI needs, idempotently. Every component lists its own packages beside it,
# one name a line ('#' comments): apt-packages.txt for what running YUI needs, apt-packages.test.txt for what
# only the tests and benchmarks need. `setup-system.sh` (npm start) installs the first set; `--test`
# (npm test, npm run bench) both.
# Without apt-get (macOS, other distributions) it installs nothing: it says what it cannot check and how to
# get it, and never fails, since the browser build needs none of these packages.
set -euo pipefail
cd "$(dirname "$0")/.."

names=(apt-packages.txt)
[ "${1:-}" = "--test" ] && names+=(apt-packages.test.txt)
find_args=()
for n in "${names[@]}"; do find_args+=(${find_args[@]:+-o} -name "$n"); done
mapfile -t wanted < <(find . \( "${find_args[@]}" \) -not -path '*/node_modules/*' -print0 \
  | xargs -0 -r cat | sed 's/#.*//' | tr -s ' \t' '\n' | grep -v '^$' | sort -u)
[ ${#wanted[@]} -gt 0 ] || exit 0

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
  echo "[setup] no apt-get here: not checking the Debian packages ${wanted[*]}." >&2
  if [ "$(uname -s)" = "Linux" ] && ! command -v gjs >/dev/null 2>&1; then
    echo "[setup] the desktop shell (yui desktop) needs gjs with GTK 3 and WebKitGTK 4.1 from your distribution" \
      "(Fedora: gjs webkit2gtk4.1; Arch: gjs webkit2gtk-4.1); until then npm start opens the browser build." >&2
  fi
  if [ "${1:-}" = "--test" ]; then
    echo "[setup] the tests need Xvfb, openbox, xcompmgr, xdotool, xterm, ImageMagick, Chromium, nginx and Lua 5.2;" \
      "the tests that use a missing one fail and name it." >&2
  fi
  exit 0
fi

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || { echo "[setup] system packages present (${#wanted[@]})"; exit 0; }

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "[setup] installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
