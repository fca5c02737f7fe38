#!/bin/sh
# sim/bench/bench_pair.py (usage: sh_bench_pair.sh BUILD): two benchmark
# programs timed against each other. Checked without timing anything:
# the ratio of two fake benchmarks' rates is NEW/BASE, a count that
# differs between the two is reported and fails the pairing (exit 1), a
# benchmark that fails stops it (exit 2), and bench_web paired with
# itself on a small world reports equal counts and every rate's ratio.
set -u
build=${1:?usage: sh_bench_pair.sh BUILD}
pair="python3 sim/bench/bench_pair.py --slice 0.05"
tmp=${TMPDIR:-/tmp}/bench_pair.$$
mkdir -p "$tmp"; trap 'rm -rf "$tmp"' EXIT
fail=0
fake() { # fake NAME EVENTS RATE [EXIT]
  printf '#!/bin/sh\necho "x_events %s events"\necho "x_per_s %s events/s"\nexit %s\n' \
    "$2" "$3" "${4:-0}" > "$tmp/$1"
  chmod +x "$tmp/$1"
}
fake base 10 100; fake new 10 150; fake other 11 100; fake broken 10 100 3

out=$($pair --rounds 2 "$tmp/base" "$tmp/new" 2>&1); rc=$?
[ $rc = 0 ] || { echo "equal counts: exit $rc"; echo "$out"; fail=1; }
echo "$out" | grep -q '^x_per_s: base 100 new 150 median ratio 1.500$' ||
  { echo "ratio of the rates not reported as 1.500:"; echo "$out"; fail=1; }
[ "$(echo "$out" | grep -c '^round [12]: x_per_s 1.500$')" = 2 ] ||
  { echo "a line per round expected:"; echo "$out"; fail=1; }

out=$($pair --rounds 1 "$tmp/base" "$tmp/other" 2>&1); rc=$?
[ $rc = 1 ] || { echo "a differing count: exit $rc, not 1"; echo "$out"; fail=1; }
echo "$out" | grep -q '^count differs: x_events \[10.0, 11.0\]$' ||
  { echo "the differing count not named:"; echo "$out"; fail=1; }

out=$($pair --rounds 1 "$tmp/base" "$tmp/broken" 2>&1); rc=$?
[ $rc = 2 ] || { echo "a failing benchmark: exit $rc, not 2"; echo "$out"; fail=1; }
echo "$out" | grep -q 'broken exited with 3' ||
  { echo "the failing benchmark not named:"; echo "$out"; fail=1; }

out=$($pair --rounds 2 "$build/bench_web" "$build/bench_web" -- \
        --clients 3000 --sites 100 --days 0.05 --hold-events 1000 2>&1); rc=$?
[ $rc = 0 ] || { echo "bench_web with itself: exit $rc"; echo "$out"; fail=1; }
for k in web_lat_full_handshakes_per_s web_full_handshakes_per_s; do
  echo "$out" | grep -q "^$k: base [0-9]* new [0-9]* median ratio [0-9.]*$" ||
    { echo "bench_web with itself: no $k ratio"; echo "$out"; fail=1; }
done
[ $fail = 0 ] && echo "bench_pair: ratios, counts and failures as expected"
exit $fail
