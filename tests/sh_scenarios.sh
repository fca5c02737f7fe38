#!/bin/sh
# Every scenario of scenarios/ in a reduced size (--set scale=0.01, a
# quarter of a measured day after its steady warm-up, one replication, and
# a small CA: --set issuance=2e4, a different world that keeps the test
# fast): it completes, records one completed run per sweep point, prints its
# own result lines, and opens with the required header (question,
# docs/sources.md citations, how to read it). Scenarios cite the project's
# own sources file, never files outside the repository.
set -u
b=${1:-build}
m="$b/mtcsim"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
days=0.25; scale=0.01
# Every run builds a week (or a lifetime) of steady history first, with a
# real signature per checkpoint: the sanitized build, several times slower,
# checks the headers only (its other tests cover the same code on smaller
# worlds), and the optimized build runs each scenario at its first sweep
# point.
runs=1; [ -n "${SAN_BUILD:-}" ] && runs=0
n=0
for s in scenarios/*.lua; do
  name=$(basename "$s" .lua)
  head -40 "$s" | grep -q "^-- Question:" || fail "$name: no 'Question:' in the header"
  head -60 "$s" | grep "^--" | grep -q "\[[a-z0-9-]*\]" || fail "$name: no docs/sources.md citation ([label])"
  for lab in $(head -60 "$s" | grep "^--" | grep -o "\[[a-z0-9-]*\]" | tr -d '[]' | sort -u); do
    grep -q "^- \*\*\[$lab\]\*\*" docs/sources.md || fail "$name: cites [$lab], which docs/sources.md lacks"
  done
  ! grep -q "facts.md\|shared/ref" "$s" || fail "$name: cites a file outside the repository"
  head -60 "$s" | grep -q "^-- Reading the result:" || fail "$name: no 'Reading the result:'"
  "$m" run "$s" --params > "$d/$name.params" || fail "$name: --params"
  grep -q '^points [0-9]*,' "$d/$name.params" || fail "$name: --params"
  n=$((n+1))
  [ $runs -eq 1 ] || continue
  # each sweep collapsed to its first value: one point
  first=$(sed -n 's/^sweep \([a-z_0-9]*\): \([^ ]*\).*/--set \1=\2/p' "$d/$name.params")
  points=1
  "$m" run "$s" --set scale=$scale --set days=$days --set issuance=2e4 $first --replications 1 \
      --out "$d/$name.db" >"$d/$name.out" 2>"$d/$name.err" ||
    fail "$name: $(head -5 "$d/$name.err")"
  got=$(sqlite3 "$d/$name.db" "select count(*) from run where status='completed'")
  [ "$got" = "$points" ] || fail "$name: $got completed runs, expected $points"
  [ -s "$d/$name.out" ] || fail "$name: printed no result"
  sqlite3 "$d/$name.db" "select count(*) from param where entity_kind='scenario' and name='scale' and abs(value - $scale) < 1e-12" |
    grep -q "^$points\$" || fail "$name: scale not recorded"
  # the population is a sample: the largest CA issues at `issuance` (2e4
  # a day here) whatever `scale` is, so proofs and logs keep their size
  r=$(sqlite3 "$d/$name.db" "select max(cast(value as real)) from param where entity_kind='ca' and name='rate'")
  awk -v r="$r" 'BEGIN { exit !(r > 0.2314814 && r < 0.2314815) }' ||
    fail "$name: the CA's rate is $r/s at scale $scale, not the 2e4/day it was given"
  # the deployed system: the window holds no start-up transient
  ! grep -q "^warning: .*MSER-5" "$d/$name.out" || fail "$name: $(grep '^warning' "$d/$name.out")"
done
[ $n -ge 8 ] || fail "expected at least 8 scenarios, found $n"
[ $runs -eq 1 ] || { echo "scenarios: $n headers ok (sanitized build: no runs)"; exit 0; }
# the default scenario prints the headline table
cp "$d/quickstart.out" "$d/q.out"
grep -q "^signatureless_fraction " "$d/q.out" || fail "quickstart summary lacks the signatureless fraction"
grep -q "^auth_bytes_ratio_vs_mldsa44 " "$d/q.out" || fail "quickstart summary lacks the byte ratio"
echo "scenarios: $n ok"
