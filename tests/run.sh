#!/bin/sh
# Runs every test: the C test binaries of each build tree given as argument
# (optimized first, then sanitized), then the shell tests tests/sh_*.sh with
# each build tree. Prints one line per test and a summary; exits 1 on failure.
set -u
fail=0; count=0
start_all=$(date +%s)
for build in "$@"; do
  # Sanitized builds run 5-20x slower: tests may shrink their sizes.
  case "$build" in */san) export MTC_TEST_SCALE=0.2 SAN_BUILD=1 ;; *) unset MTC_TEST_SCALE SAN_BUILD ;; esac
  for t in "$build"/tests/test_*; do
    [ -x "$t" ] || continue
    count=$((count+1)); s=$(date +%s)
    if "$t" >"$t.log" 2>&1; then
      printf 'PASS %-40s %3ss  %s\n' "$t" "$(( $(date +%s) - s ))" "$(tail -n 1 "$t.log")"
    else
      fail=$((fail+1)); printf 'FAIL %s\n' "$t"; sed 's/^/    /' "$t.log" | tail -n 40
    fi
  done
  for t in tests/sh_*.sh; do
    [ -f "$t" ] || continue
    count=$((count+1)); s=$(date +%s); log="$build/$(basename "$t").log"
    if sh "$t" "$build" >"$log" 2>&1; then
      printf 'PASS %-40s %3ss  %s\n' "$t [$build]" "$(( $(date +%s) - s ))" "$(tail -n 1 "$log")"
    else
      fail=$((fail+1)); printf 'FAIL %s [%s]\n' "$t" "$build"; sed 's/^/    /' "$log" | tail -n 40
    fi
  done
done
echo "tests: $((count-fail))/$count passed in $(( $(date +%s) - start_all ))s"
[ $fail -eq 0 ]
