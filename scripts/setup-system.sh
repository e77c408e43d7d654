#!/usr/bin/env bash
# Installs the Debian packages the project's tests and tools need, idempotently.
# Every component lists its own packages in an apt-packages.txt beside it (one name a line,
# '#' comments); this script unions them and installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

mapfile -t wanted < <(find . -name apt-packages.txt -not -path '*/node_modules/*' -print0 \
  | xargs -0 -r cat | sed 's/#.*//' | tr -s ' \t' '\n' | grep -v '^$' | sort -u)
[ ${#wanted[@]} -gt 0 ] || exit 0

missing=()
for p in "${wanted[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || { echo "[setup] system packages present (${#wanted[@]})"; exit 0; }

if ! command -v apt-get >/dev/null 2>&1; then
  echo "[setup] missing packages and no apt-get here: ${missing[*]}" >&2
  exit 1
fi
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "[setup] installing: ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
