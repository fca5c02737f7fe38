#!/bin/sh
# `mpirun -np N mtcsim run` gives the same summary for N = 1, 2, 3 as a
# single process, and the database holds one completed run (usage:
# sh_mpi_run.sh BUILD); a sweep spread over ranks records the same runs.
# The one figure excluded is sign_cpu_us: it is measured CPU time, not a
# simulated quantity.
set -u
M="$1/mtcsim"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# Cold-start worlds (tests/lua/mpi_*.lua): sharding is what is checked here.
args="tests/lua/mpi_web.lua --set scale=0.02 --set days=1 --seed 11 --summary all"
. tests/lib/mpi_whatif.sh
mpi_single
[ "$(wc -l < "$tmp/single")" -gt 20 ] || { echo "summary too short"; cat "$tmp/single"; exit 1; }
# each rank count: the same summary, one completed run in the database
mpi_ranks
# --spread-runs: whole runs of a sweep go to ranks in turn; rank 0 records
# them all, and the summary equals the single process's. (Sorted: each
# rank prints its own runs' on_finish lines, interleaved in any order.)
sw="tests/lua/mpi_sweep.lua --set scale=0.005 --set days=0.25 --replications 2 --seed 5 --summary all"
"$M" run $sw --out "$tmp/sw1.db" 2>/dev/null | summary | sort > "$tmp/sw1" || { echo "sweep run failed"; exit 1; }
mpirun --oversubscribe -np 2 "$M" run $sw --spread-runs --out "$tmp/sw2.db" 2>"$tmp/sw2.err" \
  | summary | sort > "$tmp/sw2" || { echo "spread sweep failed"; tail "$tmp/sw2.err"; exit 1; }
cmp -s "$tmp/sw1" "$tmp/sw2" || { echo "spread sweep summary differs:"; diff "$tmp/sw1" "$tmp/sw2"; exit 1; }
n1=$(sqlite3 "$tmp/sw1.db" "select count(*) from run where status='completed'")
n2=$(sqlite3 "$tmp/sw2.db" "select count(*) from run where status='completed'")
r1=$(sqlite3 "$tmp/sw2.db" "select count(*) from run_attr where name='mpi_rank' and value='1'")
[ "$n1" = "$n2" ] && [ "$n2" -eq 6 ] && [ "$r1" -eq 3 ] || { echo "spread runs: $n1 vs $n2 runs, $r1 from rank 1"; exit 1; }
for t in scalar histogram vector_data summary; do
  a=$(sqlite3 "$tmp/sw1.db" "select count(*) from $t"); b=$(sqlite3 "$tmp/sw2.db" "select count(*) from $t")
  [ "$a" = "$b" ] || { echo "spread: table $t has $b rows, single process $a"; exit 1; }
done
echo "identical summaries ($(wc -l < "$tmp/single") lines) with a single process and 1, 2, 3 ranks; spread sweep of $n2 runs ($r1 on rank 1) identical"
