#!/usr/bin/env bash
# browser-cdp: starts the local Chrome (or Chromium) with a dedicated persistent profile and the Chrome
# DevTools Protocol endpoint on 127.0.0.1 only, for the remote agent's Playwright MCP (--cdp-endpoint)
# to drive through an SSH reverse tunnel. CDP is full, unauthenticated control of this browser:
# never expose the port beyond 127.0.0.1; reach it only through the tunnel.
#
# Usage: launch-chrome-cdp.sh [--port N] [--profile DIR] [--browser PATH] [-- extra browser flags...]
#   --port     CDP port on 127.0.0.1 (default $CDP_PORT or 9222)
#   --profile  profile directory (default $CDP_PROFILE_DIR, else a per-user YUI directory)
#   --browser  browser executable (default $CHROME_PATH, else the first Chrome/Chromium found)
# The browser runs in the background; this script returns once the endpoint answers.
set -euo pipefail

say() { printf 'browser-cdp: %s\n' "$*"; }
die() {
  printf 'browser-cdp: %s\n' "$1" >&2
  exit "${2:-1}"
}

port="${CDP_PORT:-9222}"
profile="${CDP_PROFILE_DIR:-}"
browser="${CHROME_PATH:-}"
extra=()
while [ $# -gt 0 ]; do
  case "$1" in
    --port) [ $# -ge 2 ] || die "--port needs a value" 2; port="$2"; shift 2 ;;
    --port=*) port="${1#--port=}"; shift ;;
    --profile) [ $# -ge 2 ] || die "--profile needs a value" 2; profile="$2"; shift 2 ;;
    --profile=*) profile="${1#--profile=}"; shift ;;
    --browser) [ $# -ge 2 ] || die "--browser needs a value" 2; browser="$2"; shift 2 ;;
    --browser=*) browser="${1#--browser=}"; shift ;;
    -h | --help) sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    --) shift; extra=("$@"); break ;;
    *) die "unknown argument '$1' (browser flags go after --)" 2 ;;
  esac
done

case "$port" in
  '' | *[!0-9]*) die "--port must be an integer from 1 to 65535, got '$port'" 2 ;;
esac
[ "$port" -ge 1 ] && [ "$port" -le 65535 ] || die "--port must be an integer from 1 to 65535, got '$port'" 2

if [ -z "$browser" ]; then
  for candidate in \
    "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" \
    "$HOME/Applications/Google Chrome.app/Contents/MacOS/Google Chrome" \
    "/Applications/Chromium.app/Contents/MacOS/Chromium" \
    "$HOME/Applications/Chromium.app/Contents/MacOS/Chromium" \
    google-chrome google-chrome-stable chromium chromium-browser; do
    if [ -x "$candidate" ]; then browser="$candidate"; break; fi
    if found="$(command -v "$candidate" 2>/dev/null)" && [ -n "$found" ]; then browser="$found"; break; fi
  done
  [ -n "$browser" ] || die "no Chrome or Chromium found; pass --browser PATH or set CHROME_PATH"
fi
[ -x "$browser" ] || die "browser '$browser' is not an executable file"

if [ -z "$profile" ]; then
  if [ "$(uname -s)" = "Darwin" ]; then
    profile="$HOME/Library/Application Support/YUI/chrome-cdp-profile"
  else
    profile="${XDG_DATA_HOME:-$HOME/.local/share}/yui/chrome-cdp-profile"
  fi
fi
mkdir -p "$profile"
profile="$(cd "$profile" && pwd -P)"
pidfile="$profile/.yui-cdp.pid"
logfile="$profile/.yui-cdp.log"

# One launcher at a time per profile (mkdir is atomic on every filesystem; flock is not on macOS).
lock="$profile/.yui-cdp.launching"
mkdir "$lock" 2>/dev/null || die "another launch-chrome-cdp.sh is starting on profile $profile right now"
trap 'rmdir "$lock" 2>/dev/null || true' EXIT

# A second browser on the same profile would hand its flags to the first and exit (Chrome's process
# singleton), leaving no CDP endpoint; so refuse it and say which process holds the profile.
# Whether pid p is alive and (where /proc tells) really a browser on this profile, not a reused pid.
holds_profile() {
  kill -0 "$1" 2>/dev/null || return 1
  [ -r "/proc/$1/cmdline" ] || return 0
  tr '\0' '\n' <"/proc/$1/cmdline" | grep -qxF -- "--user-data-dir=$profile"
}
running_pid=""
if [ -f "$pidfile" ]; then
  p="$(cat "$pidfile" 2>/dev/null || true)"
  case "$p" in '' | *[!0-9]*) ;; *) holds_profile "$p" && running_pid="$p" ;; esac
fi
if [ -z "$running_pid" ] && [ -L "$profile/SingletonLock" ]; then
  # Chrome's own lock is a symlink to "<hostname>-<pid>".
  target="$(readlink "$profile/SingletonLock" || true)"
  p="${target##*-}"
  case "$p" in '' | *[!0-9]*) ;; *) [ "${target%-*}" = "$(hostname)" ] && kill -0 "$p" 2>/dev/null && running_pid="$p" ;; esac
fi
[ -z "$running_pid" ] || die "a browser is already running on profile $profile (pid $running_pid); close it first, or pass --profile for another profile"

endpoint="http://127.0.0.1:$port"
if curl -s -o /dev/null --max-time 2 "$endpoint/json/version" ||
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
  die "port $port on 127.0.0.1 is already in use; stop what listens there or pass --port"
fi

# --remote-debugging-address keeps the endpoint on loopback (Chrome's default, made explicit);
# --remote-allow-origins is left unset so web pages cannot open the DevTools WebSocket.
nohup "$browser" \
  --remote-debugging-address=127.0.0.1 \
  --remote-debugging-port="$port" \
  --user-data-dir="$profile" \
  --no-first-run \
  --no-default-browser-check \
  ${extra[@]+"${extra[@]}"} >"$logfile" 2>&1 </dev/null &
pid=$!
echo "$pid" >"$pidfile"

for _ in $(seq 1 150); do
  if ! kill -0 "$pid" 2>/dev/null; then
    rm -f "$pidfile"
    die "the browser exited before its CDP endpoint answered; its log ($logfile) ends with:
$(tail -n 5 "$logfile" 2>/dev/null)"
  fi
  if version="$(curl -sf --max-time 2 "$endpoint/json/version")"; then
    say "$browser (pid $pid) is up with CDP on $endpoint, profile $profile"
    say "$(printf '%s' "$version" | grep -o '"Browser": *"[^"]*"' || true)"
    say "tunnel:     ssh -R $port:localhost:$port <remote-host>"
    say "Playwright: npx @playwright/mcp@latest --cdp-endpoint http://localhost:$port"
    say "warning: CDP is full, unauthenticated control of this browser; keep it on 127.0.0.1"
    exit 0
  fi
  sleep 0.2
done
kill "$pid" 2>/dev/null || true
rm -f "$pidfile"
die "the CDP endpoint did not answer on $endpoint within 30 s; browser stopped (log: $logfile)"
