#!/bin/sh
# mtcsim run --profile under mpirun (usage: sh_mpi_profile.sh BUILD):
#  - a run sharded over 2 ranks prints one profile, rank 0's, summed over
#    both ranks and saying so: its window's full handshakes equal the
#    single process's (each rank handshakes for its shard of the browsers)
#    and its log entries are twice the single process's (each rank replays
#    the whole PKI);
#  - with --spread-runs each rank makes whole runs and prints its own
#    runs' profiles, none of them summed;
#  - --profile with -j and with --share-warmup is refused (exit 2).
set -u
M="$1/mtcsim"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
args="tests/lua/mpi_web.lua --set scale=0.02 --set days=1 --seed 11 --quiet --profile"
. tests/lib/mpi_whatif.sh
# a work count of the profile in file $1: row $2, column window (the 4th)
work() { grep "^#   $2  " "$1" | head -1 | awk '{ print $(NF-2) }'; }
"$M" run $args >"$tmp/p1" 2>"$tmp/p1.err" || fail "single process: $(cat "$tmp/p1.err")"
"$M" run $args -j 2 >/dev/null 2>"$tmp/j.err"; [ $? -eq 2 ] || fail "--profile -j 2 must exit 2"
"$M" run $args --share-warmup >/dev/null 2>"$tmp/s.err"; [ $? -eq 2 ] || fail "--profile --share-warmup must exit 2"
if [ -n "${SAN_BUILD:-}" ]; then
  echo "sanitized build: single-process checks only (Open MPI trips LeakSanitizer)"; exit 0
fi
command -v mpirun >/dev/null 2>&1 || fail "mpirun missing (make deps installs Open MPI)"
mpirun --oversubscribe -np 2 "$M" run $args >"$tmp/p2" 2>"$tmp/p2.err" || fail "mpirun -np 2: $(tail "$tmp/p2.err")"
[ "$(grep -c '^# profile of ' "$tmp/p2")" = 1 ] || fail "one profile expected: $(grep '^# profile' "$tmp/p2")"
grep -q '^# profile of run 1/1 point 0 replication 0, summed over its 2 MPI ranks' "$tmp/p2" \
  || fail "the profile's label: $(grep '^# profile' "$tmp/p2")"
h1=$(work "$tmp/p1" "full handshakes"); h2=$(work "$tmp/p2" "full handshakes")
[ -n "$h1" ] && [ "$h1" -gt 0 ] && [ "$h1" = "$h2" ] || fail "window full handshakes: single $h1, 2 ranks $h2"
e1=$(work "$tmp/p1" "log entries"); e2=$(work "$tmp/p2" "log entries")
[ -n "$e1" ] && [ "$e1" -gt 0 ] && [ "$e2" = $((2 * e1)) ] || fail "window log entries: single $e1, 2 ranks $e2"
sw="tests/lua/mpi_sweep.lua --set scale=0.005 --set days=0.25 --replications 2 --seed 5 --quiet --profile"
mpirun --oversubscribe -np 2 "$M" run $sw --spread-runs >"$tmp/sp" 2>"$tmp/sp.err" || fail "spread: $(tail "$tmp/sp.err")"
n=$("$M" run $sw --params 2>/dev/null | sed -n 's/^points \([0-9]*\), replications \([0-9]*\).*/\1 \2/p')
runs=$(( ${n% *} * ${n#* } ))
[ "$(grep -c '^# profile of ' "$tmp/sp")" = "$runs" ] || fail "spread: $runs profiles expected: $(grep '^# profile' "$tmp/sp")"
grep -q 'summed over' "$tmp/sp" && fail "spread: a whole run's profile is its rank's own"
echo "--profile under mpirun: one profile summed over 2 ranks ($h2 full handshakes, $e2 log entries in the window); spread: $runs profiles"
