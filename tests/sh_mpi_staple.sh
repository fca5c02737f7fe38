#!/bin/sh
# Learning from staples (scenarios/staple-learning.lua, small) gives the
# same summary, staple metrics included, for `mpirun -np N` with N = 1, 2,
# 3 as a single process (usage: sh_mpi_staple.sh BUILD). Staples are made
# in PKI events every rank replays; clients learn on the rank that
# simulates them. sign_cpu_us is measured CPU time and is left out.
set -u
M="$1/mtcsim"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_plm_rsh_agent=false
args="scenarios/staple-learning.lua --set scale=0.01 --set days=0.25 --set issuance=2e4
      --set landmark_interval=14400 --seed 13 --summary all"
summary() { grep -v '^#' | grep -v '^sign_cpu_us '; }
"$M" run $args --out "$tmp/single.db" 2>"$tmp/single.err" | summary > "$tmp/single" \
  || { echo "single-process run failed"; cat "$tmp/single.err"; exit 1; }
for m in staple_bytes staple_learned staple_full_by_visit staple_signatureless_by_visit; do
  grep -q "^$m" "$tmp/single" || { echo "summary lacks $m"; cat "$tmp/single"; exit 1; }
done
grep -q '^staple_learned  *[1-9]' "$tmp/single" || { echo "no staple learned"; cat "$tmp/single"; exit 1; }
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
echo "identical summaries ($(wc -l < "$tmp/single") lines, staple metrics included) with a single process and 1, 2, 3 ranks"
