#!/usr/bin/env bash
# npm run bench: every benchmark, each printing its ratio against a peer measured in the same run.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-system.sh || exit 1
bash scripts/setup-node.sh || exit 1
[ -f scripts/build.sh ] && { bash scripts/build.sh || exit 1; }
failed=0
for b in bench/*.ts; do
  [ -f "$b" ] || continue
  echo "== $b"
  npx tsx "$b" || failed=1
done
for m in Mods/*/; do
  if node -e "process.exit(require('./${m}package.json').scripts?.bench ? 0 : 1)" 2>/dev/null; then
    echo "== ${m%/}"
    npm run bench -w "${m%/}" || failed=1
  fi
done
exit $failed
