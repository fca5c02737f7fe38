#!/bin/sh
# The plan's expected CPU time (lua/bindings/lcost.h): `mtcsim run --params`
# prints it, and it follows the parameters it is built from: twice the
# CA's issuance doubles the log entries, a tenth of the population a
# tenth of the host visits, replications multiply the plan; `--profile`
# prints a run's measured profile (phases, parts, work) beside it, and
# changes no result.
set -u
b=${1:-build}
m="$b/mtcsim"
fail() { echo "FAIL: $*"; exit 1; }
q=scenarios/quickstart.lua

field() { # field N of the per-run cost line
  sed -n 's/^# expected CPU time (cost model[^:]*: \([0-9.]*\) s per run[^(]*(\([0-9.]*\) M log entries, \([0-9]*\) window signatures, \([0-9.]*\) M host visits).*/\1 \2 \3 \4/p' | cut -d' ' -f"$1"
}
a=$("$m" run $q --params) || fail "--params"
echo "$a" | grep -q '^# expected CPU time of the plan: ' || fail "no plan cost"
e1=$(echo "$a" | field 2); v1=$(echo "$a" | field 4); s1=$(echo "$a" | field 1)
e2=$("$m" run $q --params --set issuance=12e6 | field 2)
v2=$("$m" run $q --params --set scale=0.1 | field 4)
awk -v a="$e1" -v b="$e2" 'BEGIN { exit !(b > 1.9 * a && b < 2.1 * a) }' ||
  fail "issuance x2: entries $e1 -> $e2"
awk -v a="$v1" -v b="$v2" 'BEGIN { exit !(b > 0.09 * a && b < 0.11 * a) }' ||
  fail "scale 0.1: visits $v1 -> $v2"
p3=$("$m" run $q --params --replications 3 | sed -n 's/^# expected CPU time of the plan: \([0-9]*\) s.*/\1/p')
awk -v a="$s1" -v b="$p3" 'BEGIN { exit !(b > 2.9 * a && b < 3.1 * a) }' ||
  fail "3 replications: plan $p3 s for $s1 s per run"

# --share-warmup: the plan says how much of it is warm-ups the groups
# make once, an upper bound on the saving (a what-if swept in the window:
# 3 points x 2 replications share 2 warm-ups, so at most 4 runs' warm-ups
# are saved); the plan itself stays the unshared one; a sweep of what the
# warm-up reads shares nothing and claims nothing. The world is made large
# enough that the figures are whole seconds (a dry run builds nothing).
t0=$(mktemp -d)
sed -n '/^cat > share.lua/,/^EOF/p' tests/sh_share_warmup.sh | sed '1d;$d' |
  sed 's/per_day(20000)/per_day(2e7)/; s/count = 200 + extra/count = 200000 + extra/' >"$t0/share.lua"
grep -q 'per_day(2e7)' "$t0/share.lua" || fail "share.lua not made"
plan_of() { sed -n 's/^# expected CPU time of the plan: \([0-9]*\) s.*/\1/p'; }
u=$("$m" run "$t0/share.lua" --params | plan_of)
sh_out=$("$m" run "$t0/share.lua" --params --share-warmup)
s2=$(echo "$sh_out" | plan_of)
v=$(echo "$sh_out" | sed -n 's/^# expected CPU time of the plan: .*; --share-warmup makes warm-ups once: at most \([0-9.]*\) s less$/\1/p')
echo "$sh_out" | grep -q '^# --share-warmup: 2 warm-ups for 6 runs' || fail "not 2 warm-ups for 6 runs"
[ -n "$v" ] || fail "the shared plan does not say what its warm-ups are"
awk -v u="$u" -v s="$s2" -v v="$v" 'BEGIN { exit !(s == u && v > 0 && v < u * 4 / 6) }' ||
  fail "shared plan $s2 s (unshared $u s), at most $v s less"
"$m" run "$t0/share.lua" --params --share-warmup --set outage_hours=1 --sweep landmark_interval=3600,7200 |
  grep -q 'makes warm-ups once' && fail "an unshared sweep claims a saving"
rm -rf "$t0"

# a small run with --profile: the report, its phases and work counts
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
out=$("$m" run $q --set scale=0.01 --set issuance=2e4 --set days=0.2 \
      --out "$t/r.db" --profile 2>/dev/null) || fail "profiled run"
echo "$out" | grep -q '^# expected CPU time of the plan' || fail "run prints no plan cost"
echo "$out" | grep -q '^# profile of run 1/1' || fail "no profile"
echo "$out" | grep -q '^#   all parts ' || fail "no total"
echo "$out" | awk '/^#   log entries/ { if ($5 > 0 && $6 > 0) ok = 1 } END { exit !ok }' ||
  fail "no log entries counted in warm-up and window"
# the profile changes no result: the same run without it writes the same
# rows (wall-clock fields and measured CPU aside)
"$m" run $q --set scale=0.01 --set issuance=2e4 --set days=0.2 \
  --out "$t/n.db" --quiet >/dev/null 2>&1 || fail "run without --profile"
python3 tests/lib/dbdiff.py "$t/r.db" "$t/n.db" || fail "--profile changed the results"
"$m" run $q --profile -j 2 --params >/dev/null 2>&1; [ $? -eq 2 ] ||
  fail "--profile with -j 2 must be refused"
echo "cost model and profile ok"
