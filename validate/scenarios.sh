#!/bin/sh
# validate/scenarios.sh BUILD OUTDIR - case 6a's runs: every library
# scenario (scenarios/*.lua) once, reduced as tests/sh_scenarios.sh does it
# (--set scale=0.01, a quarter of a measured day after its steady warm-up,
# a small CA --set issuance=2e4, each sweep at its first value), into
# OUTDIR/scenarios.db. build/validate starts it in the background and then
# checks the database (validate/case_scenarios.c). Prints one line per
# scenario; exits 1 when a run fails.
set -u
b=$1; out=$2
db="$out/scenarios.db"
rm -f "$db" "$db-wal" "$db-shm"
rc=0
for s in scenarios/*.lua; do
  name=$(basename "$s" .lua)
  first=$("$b/mtcsim" run "$s" --params | sed -n 's/^sweep \([a-z_0-9]*\): \([^ ]*\).*/--set \1=\2/p')
  if "$b/mtcsim" run "$s" --set scale=0.01 --set days=0.25 --set issuance=2e4 $first \
       --replications 1 --quiet --out "$db" >"$out/scenario-$name.log" 2>&1; then
    echo "scenario $name: completed"
  else
    echo "scenario $name: FAILED (see $out/scenario-$name.log)"; rc=1
  fi
done
exit $rc
