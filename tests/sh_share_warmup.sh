#!/bin/sh
# mtcsim run --share-warmup (a small steady-start PKI and web world, 3 sweep
# points x 2 replications, the sweep a what-if scheduled in the window):
#  - the shared run writes the database the unshared run writes, every row
#    and id (tests/lib/dbdiff.py; the attribute warmup_shared aside) and
#    prints the same output, with -j 1 and -j 2, while it makes 2 warm-ups
#    for 6 runs (printed, and warmup_shared names the run that made each);
#  - a sweep of a parameter the warm-up reads (landmark_interval) is not
#    shared, and the plan says which declaration differs; nor is a point
#    whose scenario calls a Lua function before the warm-up end;
#  - a run whose declarations depend on the replication (so the plan's
#    grouping, made from replication 0, is wrong for it) is checked again
#    in its own process and runs on a world of its own: still equal;
#  - an interrupted shared sweep (SIGINT while a continuing run waits in a
#    window callback) exits 1 and says how to finish it; --resume with
#    --share-warmup finishes it equal to one unshared run through;
#  - a continuing run killed outright (SIGKILL) fails alone with the
#    reason (the warm-up serves its group's next run), the sweep exits 1;
#  - --share-warmup with --profile is refused (exit 2).
set -u
b=${1:-build}
root=$(pwd)
m="$root/$b/mtcsim"
dbdiff="python3 $root/tests/lib/dbdiff.py"
fail() { echo "FAIL: $*"; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sh_share_warmup.XXXXXX") || fail "mktemp"
pid=
trap '[ -n "$pid" ] && kill $pid 2>/dev/null; rm -f "$tmp/gate"; rm -rf "$tmp"' EXIT
cd "$tmp" || fail "cd"

cat > share.lua <<'EOF'
-- a cosigner outage of outage_hours, one hour into the window; point
-- outage_hours=1, replication 0 waits two hours in while the file "gate"
-- exists (and says so with the file "waiting" in the output folder)
sweep("outage_hours", { 0, 1, 3 })
local outage = param("outage_hours", 1, "hours of w1's outage in the window (0: none)")
local li = param("landmark_interval", hours(1), "time between landmarks")
local early = param("early_fn", 0, "1: a Lua function at 1 h (before the warm-up end)")
local repdep = param("rep_dep", 0, "1: point outage_hours=3 has 10 more browsers in replication 1")
replications(2)
local warm = steady_warmup{ lifetime = hours(6), landmark_interval = li,
                            fetch_interval = minutes(10), publication_delay = minutes(10), retry_after = 600 }
mtcsim.world{ duration = warm + hours(6), warmup = warm, grid_step = hours(1) }
local w1 = mtcsim.cosigner{ name = "w1", algorithm = "ed25519", latency = exponential{ mean = 1 } }
mtcsim.ca{ name = "ca", algorithm = "ed25519", lifetime = hours(6), rate = per_day(20000),
           landmark_interval = li, cosigners = { w1 }, quorum = 1 }
mtcsim.update_service{ name = "us", fetch_interval = minutes(10) }
mtcsim.sites{ name = "sites", count = 20 }
local extra = (repdep == 1 and outage == 3 and sim.replication == 1) and 10 or 0
mtcsim.browsers{ name = "b", count = 200 + extra, update_interval = hours(2), update_on_start = "always" }
if outage > 0 then
  sim:at(warm + hours(1), "cosigner_outage", w1, hours(outage))
end
if early == 1 and outage == 1 then
  sim:at(hours(1), function(s) end)
end
-- at the warm-up end, when the window's first checkpoint (scheduled in
-- the warm-up) falls due: this call runs first, as scheduled at the build
sim:at(warm, function(s) printf("at the warm-up end: %d checkpoints\n", s:metric("checkpoints")) end)
sim:at(warm + hours(2), function(s)
  if outage == 1 and s.replication == 0 then
    local f = io.open("gate")
    if f then local w = io.open("waiting", "w"); if w then w:close() end end
    while f do f:close(); f = io.open("gate") end
  end
  printf("outage %g, 2 h in: %d entries\n", outage, s:metric("log_entries"))
end)
sim:on_finish(function(s) printf("outage %g done: %d handshakes\n", outage, s:metric("handshake_full")) end)
EOF
# The sanitized pass checks the forked continuation's memory and undefined
# behaviour, not the model: a smaller world (a quarter of the browsers and
# of the issuance) keeps it within the suite's time, and it skips the
# planner's refusals (below)
if [ -n "${SAN_BUILD:-}" ]; then
  sed -i 's/count = 200 + extra/count = 50 + extra/; s/per_day(20000)/per_day(5000)/' share.lua
  grep -q 'count = 50 + extra' share.lua && grep -q 'per_day(5000)' share.lua ||
    fail "the sanitized pass's smaller world was not made"
fi

same_output() {  # a.txt b.txt: the same lines apart from '#' lines
  grep -v '^#' "$1" | grep -v _cpu_ >x1; grep -v '^#' "$2" | grep -v _cpu_ >x2
  cmp -s x1 x2 || fail "$2 printed another output: $(diff x1 x2 | head)"
}

# ---- a sweep of a window what-if: shared, bit-identical ----
"$m" run share.lua --out u.db >u.txt 2>err || fail "unshared: $(cat err)"
"$m" run share.lua --out s1.db --share-warmup >s1.txt 2>err || fail "--share-warmup: $(cat err)"
"$m" run share.lua --out s2.db --share-warmup -j 2 >s2.txt 2>err || fail "--share-warmup -j 2: $(cat err)"
for s in s1 s2; do
  $dbdiff u.db $s.db --ignore-attr warmup_shared || fail "$s: the shared warm-up changed the results"
  same_output u.txt $s.txt
  grep -q '^# --share-warmup: 2 warm-ups for 6 runs' $s.txt || fail "$s: plan: $(grep share $s.txt)"
  grep -q '^# --share-warmup: 4 of the runs continued a warm-up another run made (2 warm-ups for 6 runs)' $s.txt \
    || fail "$s: count: $(grep share $s.txt)"
done
[ "$(grep -c 'done: ' s1.txt)" = 6 ] || fail "on_finish output of the continuing runs"
[ "$(sqlite3 s1.db "select group_concat(sweep_point || '.' || replication || '=' || value, ' ') from run_attr
     join run using (run_id) where name = 'warmup_shared'")" = \
  "0.0=point 0 replication 0 0.1=point 0 replication 1 1.0=point 0 replication 0 1.1=point 0 replication 1 2.0=point 0 replication 0 2.1=point 0 replication 1" ] \
  || fail "warmup_shared: $(sqlite3 s1.db "select run_id, value from run_attr where name = 'warmup_shared'")"
# the shared runs' windows differ where their what-ifs do
[ "$(sqlite3 s1.db "select count(distinct events) from run where replication = 0")" = 3 ] \
  || fail "the points' windows are not their own: $(sqlite3 s1.db 'select events from run')"

# The planner's decisions (which points may share, and why not) and the
# continuing run's second look at its key are comparisons of declared
# values: the optimized pass checks them; the sanitized pass keeps to what
# a fork exercises (continuing, interrupting, resuming, being killed)
if [ -z "${SAN_BUILD:-}" ]; then
# ---- a warm-up parameter swept: not shared ----
"$m" run share.lua --set outage_hours=1 --sweep landmark_interval=3600,7200 --replications 1 \
  --out lu.db >lu.txt 2>err || fail "landmark sweep: $(cat err)"
"$m" run share.lua --set outage_hours=1 --sweep landmark_interval=3600,7200 --replications 1 \
  --out ls.db --share-warmup >ls.txt 2>err || fail "landmark sweep shared: $(cat err)"
grep -q '^# --share-warmup: 2 warm-ups for 2 runs' ls.txt || fail "landmark plan: $(grep share ls.txt)"
grep -q 'point 1 \[.*landmark_interval=7200\]: its own warm-ups: before the warm-up end it differs from point 0 in .*ca.ca.landmark_interval' ls.txt \
  || fail "landmark reason: $(grep '^#  ' ls.txt)"
grep -q '^# --share-warmup: 0 of the runs continued' ls.txt || fail "landmark count: $(grep share ls.txt)"
$dbdiff lu.db ls.db || fail "landmark sweep: rows differ"
"$m" run share.lua --set early_fn=1 --replications 1 --out e.db --share-warmup >e.txt 2>err \
  || fail "early function: $(cat err)"
grep -q 'point 1 \[outage_hours=1\]: its own warm-ups: .*share.lua:[0-9]*: sim:at calls a Lua function before the warm-up end' e.txt \
  || fail "early function reason: $(grep '^#  ' e.txt)"
grep -q '^# --share-warmup: 2 warm-ups for 3 runs' e.txt || fail "early plan: $(grep share e.txt)"

# ---- declarations that depend on the replication: checked per run ----
"$m" run share.lua --set rep_dep=1 --out du.db >du.txt 2>err || fail "rep_dep: $(cat err)"
"$m" run share.lua --set rep_dep=1 --out ds.db --share-warmup >ds.txt 2>err || fail "rep_dep shared: $(cat err)"
$dbdiff du.db ds.db --ignore-attr warmup_shared || fail "rep_dep: rows differ"
grep -q '^# --share-warmup: 3 of the runs continued' ds.txt || fail "rep_dep count: $(grep share ds.txt)"
[ "$(sqlite3 ds.db "select count(*) from run_attr join run using (run_id) where name = 'warmup_shared'
     and sweep_point = 2 and replication = 1")" = 0 ] || fail "rep_dep: point 2 replication 1 shared"
fi

# ---- interrupted, then resumed ----
wait_gate() {  # DB.files: until the gated run (point 1, replication 0) waits
  n=0
  while [ $n -lt 600 ]; do
    [ -e "$1/waiting" ] && return 0
    sleep 0.1; n=$((n+1))
  done
  fail "the gated run never started"
}
touch gate
"$m" run share.lua --out i.db --share-warmup >i1.txt 2>i1.err & pid=$!
wait_gate i.files
kill -INT $pid; rm gate
wait $pid; rc=$?; pid=
[ $rc -eq 1 ] || fail "interrupted shared sweep must exit 1 (got $rc): $(cat i1.err)"
# recorded in to-do order, as -j records: the runs before the interrupted
# one that were made, nothing after it
[ "$(sqlite3 i.db "select count(*) from run where status = 'completed'")" -lt 6 ] \
  || fail "after the interrupt: $(sqlite3 i.db 'select sweep_point, replication, status from run')"
grep -q 'runs were not made; .*--resume i.db --share-warmup. makes them' i1.err || fail "interrupt: $(cat i1.err)"
"$m" run share.lua --resume i.db --share-warmup >i2.txt 2>err || fail "resume: $(cat err)"
$dbdiff u.db i.db 1 1 || fail "the resumed shared sweep differs from one unshared run through"

# ---- a continuing run killed ----
touch gate
"$m" run share.lua --out k.db --share-warmup >k.txt 2>k.err & pid=$!
wait_gate k.files
# the parent's worker's child: the process that continues the warm-up
w=$(cat /proc/$pid/task/*/children 2>/dev/null | tr ' ' '\n' | head -1)
c=$(cat /proc/$w/task/*/children 2>/dev/null | tr ' ' '\n' | head -1)
[ -n "$c" ] || fail "no continuing process under worker $w"
kill -KILL $c; rm gate
wait $pid; rc=$?; pid=
[ $rc -eq 1 ] || fail "a killed continuing run must fail the sweep (exit 1, got $rc)"
[ "$(sqlite3 k.db "select status from run where sweep_point = 1 and replication = 0")" = failed ] \
  || fail "killed run: $(sqlite3 k.db 'select sweep_point, replication, status, error from run')"
sqlite3 k.db "select error from run where sweep_point = 1 and replication = 0" | grep -q 'was killed during the run' \
  || fail "killed run's reason: $(sqlite3 k.db 'select error from run')"

# ---- refusals ----
"$m" run share.lua --share-warmup --profile >/dev/null 2>err; [ $? -eq 2 ] || fail "--profile with --share-warmup must exit 2"
grep -q 'use one or the other' err || fail "--profile refusal: $(cat err)"
"$m" run --help | grep -q -- '--share-warmup' || fail "run --help"
echo "run --share-warmup ok"
