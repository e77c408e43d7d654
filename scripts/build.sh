#!/usr/bin/env bash
# The build: the browser build of the UI (Vite) into dist/, which the host serves.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "[build] ui -> dist/"
npx vite build --logLevel warn
# The default character of our own (no sample model ships) and the other generated characters new presets wear
# (variant-<n>.vrm beside it), generated at every build (a few seconds).
echo "[build] default avatar -> .cache/avatar/default.vrm (and variant-<n>.vrm)"
npx tsx tools/vrm-gen/main.ts
