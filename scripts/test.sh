#!/usr/bin/env bash
# The README's test command: sets up everything the tests need, then runs every check and test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-system.sh --test
bash scripts/setup-node.sh
[ -f scripts/build.sh ] && bash scripts/build.sh
echo "[test] typecheck"
npx tsc -p tsconfig.json --noEmit
npx tsc -p shell/electron/tsconfig.json --noEmit
for m in Mods/*/; do
  [ -f "$m/tsconfig.json" ] && npx tsc -p "$m/tsconfig.json" --noEmit
done
echo "[test] lint"
npx biome check .
echo "[test] vitest"
mkdir -p test-output
set +e
npx vitest run --project='!shell' --passWithNoTests --reporter=default --reporter=json \
  --outputFile.json=test-output/vitest.json "$@"
rc=$?
# The shells' tests, shuffled: each stands alone, so an order that breaks one is a bug to find. The seed is
# printed ("Running tests with seed …"); `--sequence.seed=<seed>` repeats that order.
echo "[test] vitest: the shells' tests, shuffled"
npx vitest run --project=shell --sequence.shuffle --passWithNoTests --reporter=default --reporter=json \
  --outputFile.json=test-output/vitest-shell.json "$@"
rc_shell=$?
set -e
node scripts/summary.mjs test-output/vitest.json test-output/vitest-shell.json || true
[ "$rc" -ne 0 ] && exit "$rc"
exit "$rc_shell"
