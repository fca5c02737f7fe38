#!/bin/sh
# Learning from staples (scenarios/staple-learning.lua, small) gives the
# same summary, staple metrics included, for `mpirun -np N` with N = 1, 2,
# 3 as a single process (usage: sh_mpi_staple.sh BUILD). Staples are made
# in PKI events every rank replays; clients learn on the rank that
# simulates them. sign_cpu_us is measured CPU time and is left out.
set -u
M="$1/mtcsim"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args="scenarios/staple-learning.lua --set scale=0.01 --set days=0.25 --set issuance=2e4
      --set landmark_interval=14400 --seed 13 --summary all"
. tests/lib/mpi_whatif.sh
mpi_single
for m in staple_bytes staple_learned staple_full_by_visit staple_signatureless_by_visit; do
  grep -q "^$m" "$tmp/single" || { echo "summary lacks $m"; cat "$tmp/single"; exit 1; }
done
grep -q '^staple_learned  *[1-9]' "$tmp/single" || { echo "no staple learned"; cat "$tmp/single"; exit 1; }
mpi_ranks
echo "identical summaries ($(wc -l < "$tmp/single") lines, staple metrics included) with a single process and 1, 2, 3 ranks"
