#!/bin/sh
# --max-memory covers what a scenario makes the program hold beside its
# Lua heap (usage: sh_harden_memory.sh BUILD):
#  - world actions run from a callback (each outage keeps an event pending
#    in the engine, each revocation its entries in the CA and the update
#    service): refused, with a message, past the cap;
#  - metric series, which the scenario sizes (duration / grid_step points
#    x cohorts): refused before the run when they would not fit;
#  - -j: the parent holds each run's printed output until the runs before
#    it are recorded; what does not fit the cap waits in a temporary
#    file, and the output is the same as -j 1's.
# Each case ran past the cap before (exit 0 with hundreds of MB).
set -u
b=${1:-build}
m="$b/mtcsim"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# run CODE PATTERN [ARGS]: the scenario in $d/s.lua exits CODE within 120 s,
# stderr matching PATTERN.
run() {
  code=$1; pat=$2; shift 2
  timeout -s KILL 120 "$m" run "$d/s.lua" --quiet "$@" >"$d/o" 2>"$d/err"; rc=$?
  [ $rc -lt 128 ] || fail "signal or hang (exit $rc) for: $(cat "$d/s.lua")"
  [ $rc -eq "$code" ] || fail "exit $rc, expected $code: $(head -3 "$d/err")"
  [ -z "$pat" ] || grep -Eq -- "$pat" "$d/err" || fail "message '$(head -1 "$d/err")' lacks /$pat/"
}
W='mtcsim.world{ duration = hours(2), start = "empty" }
local w = mtcsim.cosigner{ name = "w1" }
mtcsim.ca{ name = "ca", rate = per_day(1000), cosigners = { w }, quorum = 1 }
mtcsim.update_service{ name = "us" }'

# ---- world actions from a callback ----
# 200 outages a second for two hours: 1.44 million events pending, about
# 180 MB; the cap is 32 MiB
printf '%s\n%s\n' "$W" 'sim:every(1, function() for i = 1, 200 do w:act("cosigner_outage", 3e9) end end)' > "$d/s.lua"
run 1 "s.lua:5: cosigner_outage on 'w1': what the world keeps for its actions \([0-9]+ KiB so far, 128 bytes more for this one\), with the scenario's other memory [0-9]+ KiB, would exceed --max-memory 32 MiB" --max-memory 32
# the same through sim:at actions scheduled from a callback
printf '%s\n%s\n' "$W" 'sim:every(1, function() for i = 1, 200 do sim:at(sim:now() + 1, "cosigner_outage", "w1", 3e9) end end)' > "$d/s.lua"
run 1 "cosigner_outage on 'w1': what the world keeps for its actions .* would exceed --max-memory 32 MiB|timed actions: .* the memory cap \(--max-memory 32 MiB\) is reached" --max-memory 32
# and revocations, 200 a second, which the update service takes at each
# fetch (it took them one entry at a time: past the time limit under the
# sanitizers)
printf '%s\n%s\n' "$W" 'local k = 0
sim:every(1, function() for i = 1, 200 do sim:at(sim:now() + 1, "revoke_range", "ca", k, k); k = k + 1 end end)' > "$d/s.lua"
run 1 "revoke_range on 'ca': what the world keeps for its actions .* would exceed --max-memory 32 MiB|timed actions: .* the memory cap \(--max-memory 32 MiB\) is reached" --max-memory 32
# a modest use is not refused
printf '%s\n%s\n' "$W" 'sim:every(60, function() w:act("cosigner_outage", 30) end)' > "$d/s.lua"
run 0 "" --max-memory 32

# ---- metric series ----
# grid_step 0.02 s over 6 hours: 10^6 points per series, about 200 MiB
printf '%s\n' 'mtcsim.world{ duration = hours(6), grid_step = 0.02, start = "empty" }
mtcsim.ca{ name = "ca", rate = per_day(1000) }
mtcsim.update_service{ name = "us" }
mtcsim.sites{ name = "s", count = 20 }
mtcsim.browsers{ name = "b", count = 20 }' > "$d/s.lua"
run 2 "world: its metric series would hold [0-9]+ MiB \(1000000 points per series at grid_step 0.02 s over 21600 s, times the cohorts of each\), with the scenario's other memory [0-9]+ MiB: more than --max-memory 32 MiB; choose a larger grid_step" --max-memory 32
sed -i 's/grid_step = 0.02/grid_step = 60/' "$d/s.lua"
run 0 "" --max-memory 32

# ---- the -j parent's buffer of printed output ----
# three runs print 24 MiB each; the first ends last, so the other two wait
# for it in the parent
cat > "$d/s.lua" <<'LUA'
replications(3)
mtcsim.world{ duration = hours(1), start = "empty" }
mtcsim.update_service{ name = "us" }
sim:on_finish(function(s)
  if s.replication == 0 then
    local x = 0
    for i = 1, 3e7 do x = x + i end
  end
  local l = ("x"):rep(1 << 20)
  for i = 1, 24 do io.write(l) end
end)
LUA
lim="--max-memory 32 --max-instructions 200000000"
"$m" run "$d/s.lua" --quiet -j 1 $lim > "$d/o1" 2>"$d/err" || fail "-j 1: $(head -3 "$d/err")"
if [ -z "${SAN_BUILD:-}" ] && [ -x /usr/bin/time ]; then
  # peak resident memory of the parent and its workers (the largest)
  /usr/bin/time -f "%M" -o "$d/rss" "$m" run "$d/s.lua" --quiet -j 3 $lim > "$d/o3" 2>"$d/err" ||
    fail "-j 3: $(head -3 "$d/err")"
  rss=$(tail -1 "$d/rss")
  [ "$rss" -lt 60000 ] || fail "-j 3 held $rss KiB at its peak for 72 MiB of output under --max-memory 32"
else   # AddressSanitizer's shadow memory makes the peak meaningless
  "$m" run "$d/s.lua" --quiet -j 3 $lim > "$d/o3" 2>"$d/err" || fail "-j 3: $(head -3 "$d/err")"
  rss="(not measured)"
fi
cmp -s "$d/o1" "$d/o3" || fail "-j 3 printed other output than -j 1"
echo "memory cap: actions from callbacks and oversized series refused with a message; -j 3 printed 72 MiB as -j 1 did, peak $rss KiB"
