#!/usr/bin/env bash
# npm run bench: every benchmark. Each one names its peer and measures it in the same run, printing the
# ratio against it, or is labelled below as a PROFILE: timings with no peer, which claim nothing.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-system.sh --test || exit 1
bash scripts/setup-node.sh || exit 1
[ -f scripts/build.sh ] && { bash scripts/build.sh || exit 1; }
# Benchmarks without a peer doing the same work (the rest each print their peer; see docs/benchmarks.md).
PROFILES=(bench/stage.ts bench/listen.ts host/store/store.bench.ts Mods/avatar Mods/desktop-control)
label() {
  local p
  for p in "${PROFILES[@]}"; do
    if [ "$p" = "$1" ]; then
      echo "== $1  [PROFILE: no peer in this run, claims nothing]"
      return
    fi
  done
  echo "== $1  [against the peer it names, measured in the same run]"
}
failed=0
for b in bench/*.ts host/*/*.bench.ts; do
  [ -f "$b" ] || continue
  label "$b"
  npx tsx "$b" || failed=1
done
for m in Mods/*/; do
  if node -e "process.exit(require('./${m}package.json').scripts?.bench ? 0 : 1)" 2>/dev/null; then
    label "${m%/}"
    npm run bench -w "${m%/}" || failed=1
  fi
done
exit $failed
