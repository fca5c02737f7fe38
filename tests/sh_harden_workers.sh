#!/bin/sh
# -j workers under signals and failures (usage: sh_harden_workers.sh BUILD):
#  - the parent's interruption reaches workers in their warm-up once (a
#    Ctrl-C to the whole process group does not kill them), a second
#    signal ends everything, and workers die with their parent (kill -9);
#  - after a failed run -j 2 records the same rows as -j 1, and a failed
#    or killed run's sweep says that --resume finishes it.
# Optimized build only: the workers run the code a single process runs
# (sanitized in the other tests, the -j pipe messages in
# sh_harden_memory.sh); what is checked here is process management, and
# each case keeps two workers busy for seconds while it waits.
set -u
b=${1:-build}
m="$b/mtcsim"
d=$(mktemp -d)
pids=""
cleanup() { for p in $pids; do kill -9 "$p" 2>/dev/null; done; rm -rf "$d"; }
trap cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
. tests/lib/run_bg.sh

# 300000 clients each simulate a week of sessions before the first event:
# tens of seconds, stopped by the signals below
WARM='mtcsim.world{ duration = days(8) + hours(1), warmup = days(8) }
mtcsim.ca{ name = "le" }
mtcsim.update_service{ name = "u" }
mtcsim.browsers{ name = "b", count = 300000, sessions_per_day = 500, session_duration = 60, update_interval = hours(1) }'

# ---- -j workers ----
# workers PID: the worker processes of a -j parent
workers() { pgrep -P "$1" | tr '\n' ' '; }

# the parent's SIGINT reaches workers in their warm-up (forwarded)
run_bg jwarm "$WARM
replications(2)" -j 2
sleep 3
w=$(workers $pid)
[ -n "$w" ] || fail "-j 2: no worker processes"
kill -INT $pid
wait_gone $pid 8 "-j 2: one SIGINT to the parent did not stop the workers' warm-up"
wait $pid; rc=$?
[ $rc -eq 1 ] || fail "-j 2 interrupted warm-up: exit $rc ($(head -2 "$d/jwarm.err"))"
st=$(sqlite3 "$d/jwarm.db" "select group_concat(status, ' ') from run")
[ "$st" = "interrupted interrupted" ] || fail "-j 2 warm-up: statuses '$st' ($(head -3 "$d/jwarm.err"))"

LOOP='mtcsim.world{ duration = days(1) }
replications(2)
sim:at(1, function() while true do end end)'
# a Ctrl-C reaches the parent and every worker (one process group): that
# and the parent's forwarding count as one signal, the runs end
# 'interrupted', not killed
GROUP=1 run_bg grp "$LOOP" -j 2 --max-instructions 1000000000000000
# run 2 is begun in the database only once run 1 is recorded (so that -j 2
# records what -j 1 does): wait for run 1, then give worker 2 time to start
wait_status "$d/grp.db" "running" 60
sleep 3
/bin/kill -INT -- -$pid
wait_gone $pid 10 "-j 2: a Ctrl-C did not stop the sweep"
wait $pid; rc=$?
[ $rc -eq 1 ] || fail "-j 2 Ctrl-C: exit $rc ($(head -2 "$d/grp.err"))"
st=$(sqlite3 "$d/grp.db" "select group_concat(status, ' ') from run")
[ "$st" = "interrupted interrupted" ] || fail "-j 2 Ctrl-C: statuses '$st' ($(head -3 "$d/grp.err"))"

# two Ctrl-C during the workers' warm-up: everything ends at once, no
# worker outlives its parent (they used to keep the signals as a flag
# for ever and finish their warm-up, reparented to init)
GROUP=1 run_bg grp2 "$WARM
replications(2)" -j 2
sleep 3
w=$(workers $pid)
[ -n "$w" ] || fail "-j 2: no worker processes"
/bin/kill -INT -- -$pid
sleep 0.2
/bin/kill -INT -- -$pid 2>/dev/null
for p in $pid $w; do wait_gone $p 5 "-j 2: process $p outlived two Ctrl-C"; done

# after a failed run, -j 2 records the same rows as -j 1 (the runs after
# it are not recorded), and says that --resume makes the rest
FAILS='mtcsim.world{ duration = hours(1) }
replications(4)
if sim.replication == 1 then
  sim:at(600, function() local x = 0 for i = 1, 3e7 do x = x + i end error("boom") end)
end'
rows() { sqlite3 -separator ' ' "$1" "select sweep_point, replication, status from run order by run_id" | tr '\n' ' '; }
for j in 1 2; do
  printf '%s\n' "$FAILS" > "$d/fails.lua"
  timeout -s KILL 120 "$m" run "$d/fails.lua" --quiet --out "$d/fails$j.db" -j $j >/dev/null 2>"$d/fails$j.err"; rc=$?
  [ $rc -eq 1 ] || fail "-j $j failed run: exit $rc ($(head -2 "$d/fails$j.err"))"
  grep -q "2 of 4 runs were not made; \`mtcsim run $d/fails.lua --quiet --resume $d/fails$j.db -j $j\` makes them" "$d/fails$j.err" ||
    fail "-j $j failed run: no --resume note ($(cat "$d/fails$j.err"))"
done
[ "$(rows "$d/fails1.db")" = "0 0 completed 0 1 failed " ] || fail "-j 1 rows after a failure: $(rows "$d/fails1.db")"
[ "$(rows "$d/fails2.db")" = "$(rows "$d/fails1.db")" ] ||
  fail "-j 2 rows after a failure '$(rows "$d/fails2.db")' differ from -j 1's '$(rows "$d/fails1.db")'"

# a killed worker fails its run and the sweep stops with the same note
run_bg wkill "$LOOP" -j 2 --max-instructions 1000000000000000
wait_status "$d/wkill.db" "running" 60; sleep 2
w=$(workers $pid)
kill -9 ${w%% *}
wait_gone $pid 20 "-j 2: the sweep did not stop after a worker was killed"
wait $pid; rc=$?
[ $rc -eq 1 ] || fail "-j 2 killed worker: exit $rc"
grep -q "worker process [0-9]* was killed during the run (signal 9" "$d/wkill.err" || fail "killed worker: $(cat "$d/wkill.err")"
grep -q "runs were not made; \`mtcsim run $d/wkill.lua --quiet --resume $d/wkill.db -j 2 " "$d/wkill.err" || fail "killed worker: no --resume note ($(cat "$d/wkill.err"))"

# the parent killed outright: its workers die with it
run_bg kill9 "$LOOP" -j 2 --max-instructions 1000000000000000
wait_status "$d/kill9.db" "running" 60; sleep 2
w=$(workers $pid)
[ -n "$w" ] || fail "-j 2: no worker processes"
kill -9 $pid
for p in $w; do wait_gone $p 10 "-j 2: worker $p outlived its parent's kill -9"; done
echo "harden workers: ok"
