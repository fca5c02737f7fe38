#!/bin/sh
# Many CAs under MPI (usage: sh_mpi_manycas.sh BUILD): many-cas.lua with
# four CAs (each its own log, landmarks and mirror) gives the same summary
# for mpirun -np 1, 2, 3 as for a single process. Every CA closes hourly
# checkpoints here (tail_share above the largest CA's share) to keep the
# test to seconds; the per-minute path is the same code as quickstart's,
# which sh_mpi_run covers. sign_cpu_us is excluded: it is measured CPU
# time, not a simulated quantity.
set -u
M="$1/mtcsim"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args="scenarios/many-cas.lua --set ncas=4 --set tail_share=0.6 --set issuance=2e4 --set scale=0.01 --set days=0.5 --seed 5 --summary all"
. tests/lib/mpi_whatif.sh
mpi_single
# four CAs: each advertised in every MTC-aware ClientHello
grep -q '^clienthello_trust_anchors_bytes.mean *[1-9]' "$tmp/single" || { echo "no trust-anchor bytes"; cat "$tmp/single"; exit 1; }
n=$(sqlite3 "$tmp/single.db" "select count(*) from param where entity_kind='ca' and name='rate'")
[ "$n" = 4 ] || { echo "expected 4 CAs, found $n"; exit 1; }
mpi_ranks
echo "many CAs: identical summaries ($(wc -l < "$tmp/single") lines) with a single process and 1, 2, 3 ranks"
