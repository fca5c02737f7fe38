#!/bin/sh
# Runs: a sweep of 2 points x 2 replications gives 4 recorded runs with
# their parameters; the same seed reproduces the summary exactly and
# another seed changes it; --set fixes a swept parameter; SIGINT marks the
# run interrupted (exit 1) and leaves a consistent database.
set -u
b=${1:-build}
m="$b/mtcsim"
d=$(mktemp -d); trap 'rm -rf "$d"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
sc=tests/lua/pki_small.lua
q() { sqlite3 "$d/r.db" "$1"; }

"$m" run $sc --out "$d/r.db" >"$d/a.txt" 2>"$d/err" || fail "run: $(cat "$d/err")"
[ "$(q "select count(*) from run where status='completed'")" = 4 ] || fail "expected 4 completed runs"
[ "$(q "select count(distinct sweep_point || '/' || replication) from run")" = 4 ] || fail "points x replications"
[ "$(q "select group_concat(value, ',') from (select value from param p join run r using(run_id) where p.name='landmark_interval' and p.entity_kind='scenario' order by r.sweep_point, r.replication)")" = "3600,3600,10800,10800" ] || fail "swept values recorded"
[ "$(q "select count(*) from param where name='landmark_interval' and entity_kind='ca'")" = 4 ] || fail "entity parameters recorded"
[ "$(q "select value from param p join run r using(run_id) where r.sweep_point=1 and p.entity_kind='ca' and p.name='landmark_interval' limit 1")" = 10800 ] || fail "the CA got the swept value"
[ "$(q "select count(*) from param where entity_kind='cosigner' and name='latency'")" = 8 ] || fail "cosigner params"
[ "$(q "select count(distinct scenario_sha256) from run")" = 1 ] || fail "scenario hash"
[ "$(q "select count(*) from summary")" -gt 0 ] || fail "replication summaries"
grep -q "== summary \[landmark_interval=10800\]: 2 replications" "$d/a.txt" || fail "summary table per point"
grep -q "issuance_delay_landmark.mean" "$d/a.txt" || fail "summary lists metrics"
[ "$(grep -c '^landmark delay mean' "$d/a.txt")" = 4 ] || fail "on_finish ran per run"

# determinism: same seed, identical output (wall-clock lines start with #;
# sign_cpu_us is measured CPU time, the one non-simulated figure)
"$m" run $sc >"$d/b.txt" 2>/dev/null || fail "second run"
grep -v '^#' "$d/a.txt" | grep -v _cpu_ > "$d/a2"; grep -v '^#' "$d/b.txt" | grep -v _cpu_ > "$d/b2"
cmp -s "$d/a2" "$d/b2" || fail "same seed, different summary"
"$m" run $sc --seed 2 >"$d/c.txt" 2>/dev/null || fail "seed 2"
grep -v '^#' "$d/c.txt" | grep -v _cpu_ > "$d/c2"
cmp -s "$d/a2" "$d/c2" && fail "another seed gave the same summary"

# --set fixes the sweep: one point
"$m" run $sc --set landmark_interval=7200 --replications 1 --out "$d/s.db" >"$d/s.txt" 2>&1 || fail "--set run"
[ "$(sqlite3 "$d/s.db" "select count(*) from run")" = 1 ] || fail "--set must collapse the sweep"
[ "$(sqlite3 "$d/s.db" "select value from param where entity_kind='ca' and name='landmark_interval'")" = 7200 ] || fail "--set value reached the CA"
"$m" run $sc --params | grep -q "points 2, replications 2, runs 4" || fail "--params"

# SIGINT: the run stops, is marked interrupted, exit status 1
"$m" run $sc --set span='days(3000)' --set 'rate=200' --replications 1 --out "$d/i.db" --quiet >/dev/null 2>&1 &
pid=$!
n=0; while [ $n -lt 100 ] && [ "$(sqlite3 "$d/i.db" "select count(*) from run" 2>/dev/null)" != 1 ]; do sleep 0.1; n=$((n+1)); done
sleep 1
kill -INT $pid
wait $pid; rc=$?
[ $rc -eq 1 ] || fail "interrupted run must exit 1 (got $rc)"
[ "$(sqlite3 "$d/i.db" "select status from run")" = interrupted ] || fail "run not marked interrupted"
[ "$(sqlite3 "$d/i.db" "pragma integrity_check")" = ok ] || fail "database not consistent"
[ "$(sqlite3 "$d/i.db" "select count(*) from run where sweep_point=1")" = 0 ] || fail "a run started after the interrupt"
echo "lua runs: ok"
