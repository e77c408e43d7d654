#!/usr/bin/env bash
# The README's main command (`npm start`): system packages, node packages, the build, then the host.
# Options pass through to the host: --port <n>, --no-open.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-system.sh
bash scripts/setup-node.sh
bash scripts/build.sh
exec npx tsx host/bin/yui.ts serve "$@"
