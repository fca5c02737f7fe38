#!/bin/sh
# mtcsim run -j N and --resume (small PKI sweeps, 2 points x 2 replications):
#  - -j 2 writes a database whose every row, ids included, equals -j 1's
#    (wall-clock fields and CPU-time metrics aside; tests/lib/dbdiff.py),
#    and the same output (the scenario's prints in run order);
#  - a sweep interrupted (SIGINT) in its second run, then resumed with
#    -j 2, holds the same completed runs, metrics and summaries as one run
#    through; a resume while the run is still live is refused;
#  - a sweep killed outright (SIGKILL) leaves an abandoned run (ls and
#    report show it so, with why), which --resume reruns, and the finished run's on_finish output is already in
#    the redirected stdout; resuming a finished experiment does nothing;
#  - a scenario changed since the experiment ran is refused (exit 2), as
#    are a seed other than the experiment's, --out next to --resume, and
#    -j under a bad value;
#  - a run failing in a worker: exit 1, recorded as failed.
# The second run waits while a file "gate" exists beside the scenario, so
# the test interrupts it at a known place.
set -u
b=${1:-build}
root=$(pwd)
m="$root/$b/mtcsim"
dbdiff="python3 $root/tests/lib/dbdiff.py"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sh_run_jobs.XXXXXX") || fail "mktemp"
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -rf "$tmp"' EXIT
cd "$tmp" || fail "cd"

cat > gated.lua <<'EOF'
-- point 0, replication 1 waits at 1 h while the file "gate" exists
sweep("landmark_interval", { hours(1), hours(3) })
local li = param("landmark_interval", hours(1), "time between landmarks")
local fail_rep = param("fail_rep", -1, "replication whose callback fails")
replications(2)
mtcsim.world{ duration = hours(6), grid_step = hours(1), start = "empty" }
local w1 = mtcsim.cosigner{ name = "w1", algorithm = "ed25519", latency = exponential{ mean = 0.5 } }
mtcsim.ca{ name = "ca1", algorithm = "ed25519", rate = per_day(3000), landmark_interval = li,
           cosigners = { w1 }, quorum = 1 }
mtcsim.update_service{ name = "us" }
sim:at(hours(1), function(s)
  if li == hours(1) and s.replication == 1 then
    local f = io.open("gate")
    while f do f:close(); f = io.open("gate") end
  end
  if s.replication == fail_rep then error("planned failure") end
end)
sim:on_finish(function(s) printf("run done: %d entries\n", s:metric("log_entries")) end)
EOF

wait_running() {  # db n: until n runs exist and the last is running
  n=0
  while [ $n -lt 300 ]; do
    [ "$(sqlite3 "$1" "select (select count(*) from run) || status from run where run_id = (select max(run_id) from run)" 2>/dev/null)" = "${2}running" ] && return 0
    sleep 0.1; n=$((n+1))
  done
  fail "run $2 of $1 never started"
}

# ---- -j 2 equals -j 1 ----
"$m" run gated.lua --out j1.db >j1.txt 2>err || fail "-j 1: $(cat err)"
"$m" run gated.lua --out j2.db -j 2 >j2.txt 2>err || fail "-j 2: $(cat err)"
$dbdiff j1.db j2.db || fail "-j 2 wrote other rows than -j 1"
grep -v '^#' j1.txt | grep -v _cpu_ >a; grep -v '^#' j2.txt | grep -v _cpu_ >b
cmp -s a b || fail "-j 2 printed another output: $(diff a b)"
[ "$(grep -c '^run done' j2.txt)" = 4 ] || fail "scenario output of the workers"
"$m" run gated.lua -j 0 >/dev/null 2>&1; [ $? -eq 2 ] || fail "-j 0 must exit 2"

# ---- interrupted in run 2, resumed with -j 2 ----
touch gate
"$m" run gated.lua --out r.db >r1.txt 2>r1.err & pid=$!
wait_running r.db 2
"$m" run gated.lua --resume r.db >/dev/null 2>live.err; [ $? -eq 2 ] || fail "resume of a live run must exit 2"
grep -q 'experiment 1 of r.db is being run or resumed by another process' live.err || fail "live run: $(cat live.err)"
kill -INT $pid; rm gate
wait $pid; rc=$?; pid=
[ $rc -eq 1 ] || fail "interrupted sweep must exit 1 (got $rc)"
[ "$(sqlite3 r.db "select group_concat(status) from run")" = "completed,interrupted" ] \
  || fail "after the interrupt: $(sqlite3 r.db 'select * from run')"
"$m" ls r.db | grep -q '3 to do (mtcsim run SCENARIO --resume FILE.db)' || fail "ls: runs to do"
"$m" run gated.lua --resume r.db -j 2 >r2.txt 2>r2.err || fail "resume: $(cat r2.err)"
grep -q '^# resuming experiment 1 of r.db: 3 of 4 runs to do' r2.txt || fail "resume line: $(cat r2.txt)"
$dbdiff j1.db r.db 1 1 || fail "resumed sweep differs from one run through"
[ "$(sqlite3 r.db "select count(*) from run where status = 'completed'")" = 4 ] || fail "completed runs"
[ "$(sqlite3 r.db "select count(*) from experiment")" = 1 ] || fail "resume made a new experiment"
"$m" run gated.lua --resume r.db >done.txt 2>&1 || fail "resume of a complete experiment"
grep -q '0 of 4 runs to do' done.txt || fail "nothing to do: $(cat done.txt)"

# ---- killed outright: an abandoned run ----
touch gate
"$m" run gated.lua --out k.db --quiet >k.out 2>&1 & pid=$!
wait_running k.db 2
kill -KILL $pid; wait $pid 2>/dev/null; pid=; rm gate
# the first run's on_finish output reached the file before the kill
[ "$(grep -c '^run done' k.out)" = 1 ] || fail "on_finish output lost with stdout redirected: $(cat k.out)"
"$m" ls k.db | grep -q '1 abandoned' || fail "ls: abandoned run: $("$m" ls k.db)"
"$m" ls k.db --runs | grep -q ' abandoned .*writer gone' ||
  fail "ls --runs: the abandoned run's reason: $("$m" ls k.db --runs)"
# the report shows it as ls does, not as a run at work
"$m" report k.db --out krep --quiet >/dev/null 2>err || fail "report of a killed sweep: $(cat err)"
grep -q '<td>abandoned</td>' krep/index.html || fail "report: the killed run is not shown abandoned"
grep -q '<td>running</td>' krep/index.html && fail "report: the killed run is shown running"
grep -q '1 run(s) abandoned' krep/index.html || fail "report: no note of the abandoned run"
"$m" run gated.lua --resume k.db --quiet >/dev/null 2>err || fail "resume after kill: $(cat err)"
$dbdiff j1.db k.db 1 1 || fail "resumed after kill differs"

# ---- refusals ----
cp r.db c.db
sqlite3 c.db "update run set status = 'failed' where run_id = 4" || fail "sqlite3"
echo "-- an edit" >> gated.lua
"$m" run gated.lua --resume c.db >/dev/null 2>err; [ $? -eq 2 ] || fail "changed scenario must exit 2"
grep -q 'gated.lua has changed since experiment 1 ran' err || fail "changed scenario: $(cat err)"
"$m" run gated.lua --resume c.db --seed 3 >/dev/null 2>err; [ $? -eq 2 ] || fail "--resume with --seed must exit 2"
grep -q -- '--seed 1 then, 3 now' err || fail "--resume options: $(cat err)"
"$m" run gated.lua --resume c.db --out x.db >/dev/null 2>err; [ $? -eq 2 ] || fail "--resume with --out must exit 2"
"$m" run gated.lua --resume nope.db >/dev/null 2>&1; [ $? -eq 2 ] || fail "--resume of a missing file"
[ ! -e nope.db ] || fail "--resume created a database"

# ---- a failing run in a worker ----
"$m" run gated.lua --out f.db -j 2 --set fail_rep=1 >/dev/null 2>err; [ $? -eq 1 ] || fail "failing run must exit 1"
grep -q 'planned failure' err || fail "failure message: $(cat err)"
[ "$(sqlite3 f.db "select count(*) from run where status = 'failed' and error like '%planned failure%'")" -ge 1 ] \
  || fail "failed run not recorded: $(sqlite3 f.db 'select run_id, status, error from run')"
"$m" run --help | grep -q -- '--resume FILE.db' || fail "run --help"
echo "run -j and --resume ok"
