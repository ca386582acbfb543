#!/bin/sh
# Requests to patchbay-web from beyond loopback, for WebSecurityTests: run inside a network
# namespace of its own (`unshare --net`), where 192.0.2.1 (TEST-NET-1, reached by nothing outside
# this namespace) is an address of this host that is not loopback.
#
#   non_loopback_request.sh PATCHBAY_WEB HUB_SOCKET TOKEN_FILE
#
# Prints `NAME STATUS` lines for the test to check.
set -eu
export PATH="/usr/sbin:/sbin:$PATH"  # ip(8)
web=$1 socket=$2 token_file=$3 address=192.0.2.1
ip link set lo up
ip addr add "$address/32" dev lo
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT

# Without a token patchbay-web does not even start on this address.
if "$web" --listen "$address:0" --socket "$socket" >"$work/refused.txt" 2>&1; then
  echo "start-without-token 0"
else
  echo "start-without-token $?"
fi
grep -q "needs an access token" "$work/refused.txt" && echo "refusal-message ok"

"$web" --listen "$address:0" --socket "$socket" --token-file "$token_file" >"$work/web.txt" 2>&1 &
pid=$!
deadline=$(($(date +%s) + 60))
until grep -q "listening on" "$work/web.txt"; do
  [ "$(date +%s)" -lt "$deadline" ] || { cat "$work/web.txt"; exit 1; }
  kill -0 "$pid" || { cat "$work/web.txt"; exit 1; }
  sleep 0.1
done
port=$(sed -n 's|.*listening on http://192\.0\.2\.1:\([0-9]*\).*|\1|p' "$work/web.txt")
url=http://$address:$port
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 30 "$@"; }
echo "api-without-token $(code "$url/api/status")"
echo "metrics-without-token $(code "$url/metrics")"
echo "page-without-token $(code "$url/")"
echo "post-without-token $(code -X POST -H 'Content-Type: application/json' --data '{"instance":"probe"}' "$url/api/restart")"
echo "api-wrong-token $(code -H 'Authorization: Bearer not-the-token-0123456789' "$url/api/status")"
echo "api-with-token $(code -H "Authorization: Bearer $(cat "$token_file")" "$url/api/status")"
