#!/bin/sh
# The steady-state check (MSER-5, docs/scenarios.md): a cold start's window
# is flagged in the summary and in the report; a steady start's is not
# (usage: sh_transient.sh BUILD).
set -u
m="$1/mtcsim"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
"$m" run tests/lua/transient_world.lua --set start=empty --out "$d/cold.db" >"$d/cold.out" 2>"$d/cold.err" ||
  fail "cold run: $(head -3 "$d/cold.err")"
grep -q "^warning: signatureless_fraction: MSER-5 finds an initial transient" "$d/cold.out" ||
  fail "the cold start's summary does not warn: $(grep transient "$d/cold.out")"
grep -q "^signatureless_fraction.transient  *1$" "$d/cold.out" || fail "no transient statistic"
"$m" report "$d/cold.db" --out "$d/cold-report" --quiet >/dev/null 2>&1 || fail "cold report"
grep -q "<b>Warning:</b> MSER-5 finds an initial transient" "$d/cold-report/index.html" ||
  fail "the cold start's report does not warn"
if [ -n "${SAN_BUILD:-}" ]; then
  # a week of history with a real signature per checkpoint: too slow here
  echo "transient check: cold start flagged (sanitized build: steady run skipped)"; exit 0
fi
"$m" run tests/lua/transient_world.lua --set start=steady --out "$d/steady.db" >"$d/steady.out" 2>"$d/steady.err" ||
  fail "steady run: $(head -3 "$d/steady.err")"
! grep -q "^warning: .*MSER-5" "$d/steady.out" || fail "steady start flagged: $(grep '^warning' "$d/steady.out")"
grep -q "^signatureless_fraction.transient  *0$" "$d/steady.out" || fail "steady: no verdict"
"$m" report "$d/steady.db" --out "$d/steady-report" --quiet >/dev/null 2>&1 || fail "steady report"
grep -q "MSER-5 finds no initial transient" "$d/steady-report/index.html" || fail "steady report"
echo "transient check: cold start flagged in summary and report, steady start clean"
