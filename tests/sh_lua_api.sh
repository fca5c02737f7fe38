#!/bin/sh
# The scenario API from Lua: units, rates, distributions, profiles, params
# and the real core (tests/lua/api_checks.lua asserts every property), in
# the sandbox and with --unsafe; `mtcsim params` lists every kind.
set -u
b=${1:-build}
m="$b/mtcsim"
fail() { echo "FAIL: $*"; exit 1; }

out=$("$m" run tests/lua/api_checks.lua --quiet 2>&1) || fail "api checks: $out"
echo "$out" | grep -q "api checks: [0-9]* passed" || fail "no pass line: $out"
out=$("$m" run tests/lua/api_checks.lua --quiet --set x=7 --unsafe 2>&1) || fail "api checks (unsafe): $out"
"$m" run --help | grep -q "usage: mtcsim run" || fail "run --help"
"$m" --help | grep -q "run" || fail "--help lists run"
"$m" version | grep -q "^mtcsim " || fail "version"
p=$("$m" params) || fail "params"
for k in world ca cosigner update_service; do
  echo "$p" | grep -q "^$k: " || fail "params lacks kind $k"
done
echo "$p" | grep -q "cosigner_outage" || fail "params lacks actions"
"$m" params ca --markdown | grep -q '^| `landmark_interval` |' || fail "params --markdown"
"$m" params nosuchkind >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown kind must exit 2"
echo "lua api: ok"
