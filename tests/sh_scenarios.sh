#!/bin/sh
# Every scenario of scenarios/ in a reduced size (--set scale=0.01, a
# quarter of a simulated day, one replication): it completes, records one
# completed run per sweep point, prints its own result lines, and opens
# with the required header (question, cited sources, how to read it); every
# [tag] a header cites is an entry of docs/sources.md.
set -u
b=${1:-build}
m="$b/mtcsim"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# sanitized builds run several times slower: shrink further
days=0.25; scale=0.01
if [ -n "${MTC_TEST_SCALE:-}" ]; then days=0.05; scale=0.003; fi
n=0
for s in scenarios/*.lua; do
  name=$(basename "$s" .lua)
  head -40 "$s" | grep -q "^-- Question:" || fail "$name: no 'Question:' in the header"
  # sources: docs/sources.md tags (the project's own); facts.md line
  # citations are being replaced by them
  head -40 "$s" | grep -q "docs/sources.md\|facts.md:[0-9]" || fail "$name: no sources cited (docs/sources.md)"
  if head -40 "$s" | grep -q "docs/sources.md"; then
    for tag in $(head -60 "$s" | grep '^--' | grep -o '\[[a-z0-9-]*\]' | sort -u | tr -d '[]'); do
      grep -q "\*\*\[$tag\]\*\*" docs/sources.md || fail "$name: [$tag] is not in docs/sources.md"
    done
  fi
  head -40 "$s" | grep -q "^-- Reading the result:" || fail "$name: no 'Reading the result:'"
  points=$("$m" run "$s" --params | sed -n 's/^points \([0-9]*\),.*/\1/p')
  [ -n "$points" ] || fail "$name: --params"
  "$m" run "$s" --set scale=$scale --set days=$days --replications 1 --quiet \
      --out "$d/$name.db" >"$d/$name.out" 2>"$d/$name.err" ||
    fail "$name: $(head -5 "$d/$name.err")"
  got=$(sqlite3 "$d/$name.db" "select count(*) from run where status='completed'")
  [ "$got" = "$points" ] || fail "$name: $got completed runs, expected $points"
  [ -s "$d/$name.out" ] || fail "$name: printed no result"
  sqlite3 "$d/$name.db" "select count(*) from param where entity_kind='scenario' and name='scale' and abs(value - $scale) < 1e-12" |
    grep -q "^$points\$" || fail "$name: scale not recorded"
  n=$((n+1))
done
[ $n -ge 8 ] || fail "expected at least 8 scenarios, found $n"
# the default scenario prints the headline table
"$m" run scenarios/quickstart.lua --set scale=$scale --set days=$days 2>/dev/null >"$d/q.out" || fail "quickstart"
grep -q "^signatureless_fraction " "$d/q.out" || fail "quickstart summary lacks the signatureless fraction"
grep -q "^auth_bytes_ratio_vs_mldsa44 " "$d/q.out" || fail "quickstart summary lacks the byte ratio"
echo "scenarios: $n ok"
