#!/bin/sh
# Timestamped multi-CA landmark groups under MPI: `mpirun -np N mtcsim run`
# of tests/lua/mpi_groups.lua (a group of three CAs, one unreachable by the
# update service for six hours) gives the same summary for N = 1, 2, 3 as
# a single process (usage: sh_mpi_groups.sh BUILD). sign_cpu_us is
# excluded: it is measured CPU time, not a simulated quantity.
set -u
M="$1/mtcsim"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args="tests/lua/mpi_groups.lua --set scale=0.05 --set days=0.5 --seed 13 --summary all"
. tests/lib/mpi_whatif.sh
mpi_single
[ "$(wc -l < "$tmp/single")" -gt 20 ] || { echo "summary too short"; cat "$tmp/single"; exit 1; }
grep -q "ch_bytes [1-9]" "$tmp/single" || { echo "no ClientHello bytes recorded"; cat "$tmp/single"; exit 1; }
mpi_ranks
echo "landmark groups: identical summaries ($(wc -l < "$tmp/single") lines) with a single process and 1, 2, 3 ranks"
