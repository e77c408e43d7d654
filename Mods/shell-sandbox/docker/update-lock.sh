#!/usr/bin/env bash
# Regenerates docker/package-lock.json, the image's lock, after the mod's or the mod kit's
# package.json changed: lays out the image's npm root (this folder's package.json plus both
# workspaces' package.json) in a scratch directory and resolves it without installing anything.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
mods="$(dirname "$(dirname "$here")")"
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/Mods/mod-kit" "$stage/Mods/shell-sandbox"
cp "$here/package.json" "$stage/package.json"
[ -f "$here/package-lock.json" ] && cp "$here/package-lock.json" "$stage/package-lock.json"
cp "$mods/mod-kit/package.json" "$stage/Mods/mod-kit/package.json"
cp "$mods/shell-sandbox/package.json" "$stage/Mods/shell-sandbox/package.json"
node "$here/strip-dev.mjs" "$stage/Mods/mod-kit/package.json" "$stage/Mods/shell-sandbox/package.json"
(cd "$stage" && npm install --package-lock-only --no-audit --no-fund --ignore-scripts >/dev/null)
cp "$stage/package-lock.json" "$here/package-lock.json"
echo "updated $here/package-lock.json"
