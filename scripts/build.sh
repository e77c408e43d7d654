#!/usr/bin/env bash
# The build: the browser build of the UI (Vite) into dist/, which the host serves.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "[build] ui -> dist/"
npx vite build --logLevel warn
