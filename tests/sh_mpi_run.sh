#!/bin/sh
# `mpirun -np N mtcsim run` gives the same summary for N = 1, 2, 3 as a
# single process (usage: sh_mpi_run.sh BUILD). The one figure excluded is
# sign_cpu_us: it is measured CPU time, not a simulated quantity.
set -u
M="$1/mtcsim"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_plm_rsh_agent=false
args="scenarios/quickstart.lua --set scale=0.02 --set days=1 --seed 11 --summary all"
summary() { grep -v '^#' | grep -v '^sign_cpu_us '; }
"$M" run $args --out "$tmp/single.db" 2>"$tmp/single.err" | summary > "$tmp/single" \
  || { echo "single-process run failed"; cat "$tmp/single.err"; exit 1; }
[ "$(wc -l < "$tmp/single")" -gt 20 ] || { echo "summary too short"; cat "$tmp/single"; exit 1; }
if [ -n "${SAN_BUILD:-}" ]; then
  echo "sanitized build: single-process run only (Open MPI trips LeakSanitizer)"; exit 0
fi
command -v mpirun >/dev/null 2>&1 || { echo "mpirun missing (make deps installs Open MPI)"; exit 1; }
for n in 1 2 3; do
  mpirun --oversubscribe -np $n "$M" run $args --out "$tmp/np$n.db" 2>"$tmp/np$n.err" \
    | summary > "$tmp/np$n" || { echo "mpirun -np $n failed"; tail "$tmp/np$n.err"; exit 1; }
  if ! cmp -s "$tmp/single" "$tmp/np$n"; then
    echo "np=$n summary differs from the single process:"; diff "$tmp/single" "$tmp/np$n"; exit 1
  fi
  # rank 0 alone wrote the database: one completed run
  st=$(sqlite3 "$tmp/np$n.db" "select count(*) || ' ' || group_concat(status) from run")
  [ "$st" = "1 completed" ] || { echo "np=$n database runs: $st"; exit 1; }
done
echo "identical summaries ($(wc -l < "$tmp/single") lines) with a single process and 1, 2, 3 ranks"
