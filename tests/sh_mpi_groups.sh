#!/bin/sh
# Timestamped multi-CA landmark groups under MPI: `mpirun -np N mtcsim run`
# of tests/lua/mpi_groups.lua (a group of three CAs, one unreachable by the
# update service for six hours) gives the same summary for N = 1, 2, 3 as
# a single process (usage: sh_mpi_groups.sh BUILD). sign_cpu_us is
# excluded: it is measured CPU time, not a simulated quantity.
set -u
M="$1/mtcsim"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_plm_rsh_agent=false
args="tests/lua/mpi_groups.lua --set scale=0.05 --set days=0.5 --seed 13 --summary all"
summary() { grep -v '^#' | grep -v '^sign_cpu_us '; }
"$M" run $args --out "$tmp/single.db" 2>"$tmp/single.err" | summary > "$tmp/single" \
  || { echo "single-process run failed"; cat "$tmp/single.err"; exit 1; }
[ "$(wc -l < "$tmp/single")" -gt 20 ] || { echo "summary too short"; cat "$tmp/single"; exit 1; }
grep -q "ch_bytes [1-9]" "$tmp/single" || { echo "no ClientHello bytes recorded"; cat "$tmp/single"; exit 1; }
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
done
echo "landmark groups: identical summaries ($(wc -l < "$tmp/single") lines) with a single process and 1, 2, 3 ranks"
