#!/bin/sh
# The mtcsim dispatcher and `bench engine` argument handling: exit codes
# (0 ok, 2 bad usage with the bad argument named) and the `name value unit`
# output format on a tiny run (no timing is asserted).
set -u
b=${1:-build}
m="$b/mtcsim"
fail() { echo "FAIL: $*"; exit 1; }

"$m" --help >/dev/null || fail "--help"
"$m" version | grep -q '^mtcsim [0-9]' || fail "version"
"$m" >/dev/null 2>&1; [ $? -eq 2 ] || fail "no command must exit 2"
"$m" frobnicate >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown command must exit 2"
"$m" bench nope 2>&1 | grep -q "nope" || fail "unknown bench not named"
"$m" bench nope >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown bench must exit 2"
"$m" bench engine --bogus 2>&1 | grep -q -- "--bogus" || fail "bad flag not named"
"$m" bench engine --pending 0 >/dev/null 2>&1; [ $? -eq 2 ] || fail "--pending 0 must exit 2"
"$m" bench engine --help | grep -q "usage" || fail "bench engine --help"

out=$("$m" bench engine --max 1000 --pending 1000 --no-ns3) || fail "tiny bench run"
echo "$out" | awk 'NF != 3 { bad = 1 } END { exit bad }' || fail "a line is not 'name value unit'"
for k in hold_events_per_s hold_heap4_1e3_events_per_s hold_calendar_1e3_events_per_s \
         hold_ladder_1e3_events_per_s phold_events_per_s queue_default; do
  echo "$out" | grep -q "^$k " || fail "missing $k"
done
# with the ns-3 reference when it was built (optimized tree only)
if [ -x "$b/ns3-hold" ]; then
  out=$("$m" bench engine --max 1000 --pending 1000) || fail "bench with ns-3"
  echo "$out" | grep -q '^ns3_hold_events_per_s ' || fail "missing ns3 figure"
  echo "$out" | grep -q '^hold_ratio_vs_ns3 ' || fail "missing ratio"
fi
echo "mtcsim cli ok"
