#!/bin/sh
# Hostile or broken scenarios (issue 21): every reproduction ends with a
# clear error and exit 1 or 2 - never a signal, never a sanitizer report,
# never later than its limit - and leaves every file outside the run's
# output folder unchanged. One case per finding; the comment names it.
set -u
b=${1:-build}
m="$b/mtcsim"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
mkdir -p "$d/sc" "$d/out"
# KEEP_GOING=1 reports every failing case (to check a test against the
# code before its fix) instead of stopping at the first.
nfail=0
fail() { echo "FAIL: $*"; nfail=$((nfail + 1)); [ -n "${KEEP_GOING:-}" ] || exit 1; }

# run CODE PATTERN LUA [ARGS...]: the scenario exits with CODE (within 60 s)
# and its stderr matches PATTERN (grep -E; empty: anything).
run() {
  code=$1; pat=$2; printf '%s\n' "$3" > "$d/sc/s.lua"; shift 3
  timeout 60 "$m" run "$d/sc/s.lua" --quiet "$@" >"$d/stdout" 2>"$d/err"; rc=$?
  if grep -Eq "runtime error|AddressSanitizer|LeakSanitizer" "$d/err"; then
    fail "sanitizer report for: $(head -c 300 "$d/sc/s.lua"): $(grep -Em2 "runtime error|Sanitizer" "$d/err")"
    return
  fi
  [ $rc -lt 128 ] || { fail "signal (exit $rc) for: $(head -c 300 "$d/sc/s.lua"); $(tail -c 300 "$d/err")"; return; }
  [ $rc -eq "$code" ] || { fail "exit $rc, expected $code for: $(head -c 300 "$d/sc/s.lua"); $(tail -c 400 "$d/err")"; return; }
  [ -z "$pat" ] || grep -Eq -- "$pat" "$d/err" ||
    fail "message '$(head -c 400 "$d/err")' lacks /$pat/ for: $(head -c 200 "$d/sc/s.lua")"
}

# 1. core.hex wrote its NUL one byte past a 2n-byte buffer
run 0 "" 'for i = 1, 40 do local s = mtcsim.core.hex(("\255"):rep(5000 + i)); assert(#s == 2 * (5000 + i)) end
local t = {} for i = 1, 200 do t[i] = ("x"):rep(10003) end
collectgarbage()
assert(mtcsim.core.hex("\0\1\171\255") == "0001abff")'

[ $nfail -eq 0 ] || exit 1
echo "lua hardening: ok"
