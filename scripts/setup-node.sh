#!/usr/bin/env bash
# Installs the npm dependencies exactly as locked, skipping the work when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."
export ELECTRON_SKIP_BINARY_DOWNLOAD=1
stamp=node_modules/.yui-lock-stamp
sum=$(cat package-lock.json package.json Mods/*/package.json 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$sum" ]; then
  exit 0
fi
echo "[setup] npm ci"
npm ci --no-fund --no-audit --loglevel=error
echo "$sum" > "$stamp"
