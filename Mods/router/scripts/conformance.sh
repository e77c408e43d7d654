#!/usr/bin/env bash
# Runs the scenarios of the official MCP conformance suite that apply to any server (no scenario-specific
# test tools needed) against every MCP mod, and prints one summary table. The suite needs Node 22, so it
# runs under `npx -p node@22` while the mods themselves run on the project's Node 20.
#
# Usage: Mods/router/scripts/conformance.sh                # starts each mod itself on a free port
#        Mods/router/scripts/conformance.sh NAME=URL ...   # checks mods that are already running
# Full logs land in test-output/conformance/<name>.log. Exit status 1 when any scenario failed.
set -uo pipefail
cd "$(dirname "$0")/../../.."

CONFORMANCE="@modelcontextprotocol/conformance@0.1.16"
# server-sse-polling is left out: it calls its own test_reconnection tool, which no mod has.
SCENARIOS=(server-initialize ping tools-list dns-rebinding-protection server-sse-multiple-streams)
# Not MCP servers, or not runnable alone: the router is a proxy, browser-cdp a launcher, mod-kit a library.
SKIP=" router browser-cdp mod-kit "
OUT=test-output/conformance
mkdir -p "$OUT"
# What a mod needs on its command line to start outside its usual host (a scratch workspace, ...).
scratch="$(mktemp -d)"
declare -A MOD_ARGS=([shell-sandbox]="--workspace $scratch")

started_pgid=""
cleanup() { [ -n "$started_pgid" ] && kill -- "-$started_pgid" 2>/dev/null; started_pgid=""; }
trap 'cleanup; rm -rf "$scratch"' EXIT

free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }

# Starts `$@` in its own process group (so its npm/tsx children end with it) and waits until the URL
# answers (any status but the router's 502, which means the mod behind it is not up yet).
start_and_wait() {
  local name="$1" url="$2"; shift 2
  setsid "$@" >"$OUT/$name.server.log" 2>&1 &
  started_pgid=$!
  for _ in $(seq 1 150); do
    code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$url" || true)"
    [ "$code" != "000" ] && [ "$code" != "502" ] && return 0
    kill -0 "$started_pgid" 2>/dev/null || return 1
    sleep 0.2
  done
  return 1
}

run_suite() {
  local name="$1" url="$2"
  # One npx (one Node 22) per mod, every scenario inside it.
  npx -y -p node@22 -p "$CONFORMANCE" -- sh -c \
    'node --version; for s do echo "=== scenario $s"; conformance server --url "$URL" --scenario "$s"; done' \
    sh "${SCENARIOS[@]}" >"$OUT/$name.log" 2>&1 <<<"" || true
}

targets=()
if [ $# -gt 0 ]; then
  targets=("$@")
else
  targets=("example=kit" "example-via-router=kit-router")
  for pkg in Mods/*/package.json; do
    mod="$(basename "$(dirname "$pkg")")"
    case "$SKIP" in *" $mod "*) continue ;; esac
    grep -q '"start"' "$pkg" && targets+=("$mod=start")
  done
fi

failed=0
rows=()
for t in "${targets[@]}"; do
  name="${t%%=*}"
  how="${t#*=}"
  url="$how"
  if [ "$how" = "kit" ] || [ "$how" = "kit-router" ] || [ "$how" = "start" ]; then
    port="$(free_port)"
    url="http://127.0.0.1:$port/mcp"
    if [ "$how" = "kit" ]; then
      cmd=(npx tsx Mods/mod-kit/test/fixtures/example-mod.ts --port "$port")
    elif [ "$how" = "kit-router" ]; then
      # The same example mod, reached through the router at /bench/mcp.
      rport="$(free_port)"
      url="http://127.0.0.1:$rport/bench/mcp"
      cmd=(bash -c 'npx tsx Mods/mod-kit/test/fixtures/example-mod.ts --port "$1" & exec npx tsx Mods/router/bench/router-child.ts "$1" "$2"' sh "$port" "$rport")
    else
      # shellcheck disable=SC2206 # MOD_ARGS values are word lists on purpose
      cmd=(npm start --silent -w "Mods/$name" -- --port "$port" ${MOD_ARGS[$name]:-})
    fi
    if ! start_and_wait "$name" "$url" "${cmd[@]}"; then
      rows+=("| $name | did not start: $(tail -n 1 "$OUT/$name.server.log" | tr '|' '/' | cut -c1-120) | | |")
      failed=1
      cleanup
      continue
    fi
  fi
  echo "[conformance] $name at $url" >&2
  URL="$url" run_suite "$name" "$url"
  cleanup
  node_version="$(grep -m1 '^v[0-9]' "$OUT/$name.log" || echo "no node@22: $(grep -m1 -i 'err' "$OUT/$name.log")")"
  for s in "${SCENARIOS[@]}"; do
    result="$(awk -v s="=== scenario $s" '$0==s{f=1;next} /^=== scenario/{f=0} f && /^Passed:/{print; exit}' "$OUT/$name.log")"
    [ -n "$result" ] || result="no result (see $OUT/$name.log)"
    case "$result" in "Passed: "*", 0 failed"*) ;; *) failed=1 ;; esac
    rows+=("| $name | $s | $result | $node_version |")
  done
done

echo "| mod | scenario | result | suite's Node |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
exit "$failed"
