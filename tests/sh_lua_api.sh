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
# each parameter's live flag and plausible range, from its descriptor
# (sim/params.h): the CA's rate and intervals may change in a run, its
# lifetime may not and has a plausible range; the name has neither
pc=$("$m" params ca)
for n in rate checkpoint_interval landmark_interval; do
  echo "$pc" | grep -Eq "^  $n .* live [a-z]" || fail "params ca: $n not shown live: $(echo "$pc" | grep "^  $n ")"
done
echo "$pc" | grep "^  lifetime " | grep -q ' live ' && fail "params ca: lifetime shown live"
echo "$pc" | grep -q "^  lifetime .*; plausible 1 h .. 400 d (a certificate lifetime)$" ||
  fail "params ca: lifetime's plausible range: $(echo "$pc" | grep "^  lifetime ")"
echo "$pc" | grep "^  name " | grep -q 'live\|plausible' && fail "params ca: name shown live or with a plausible range"
"$m" params update_service --markdown | grep -q '^| `fetch_interval` | duration | s | 1..4e+07 | `600` | live | 10 s .. 7 d (' ||
  fail "params --markdown: fetch_interval's live and plausible cells"
"$m" params nosuchkind >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown kind must exit 2"
echo "lua api: ok"
