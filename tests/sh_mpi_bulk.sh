#!/bin/sh
# Bulk update proofs under MPI (usage: sh_mpi_bulk.sh BUILD): with
# `proofs = "bulk"` the summary, update bytes included, is the same for
# mpirun -np 1, 2, 3 as for a single process, and differs from
# `proofs = "per_subtree"` in the update sizes only (update_bytes,
# update_publication_bytes, update_snapshot_bytes). sign_cpu_us is
# excluded: it is measured CPU time, not a simulated quantity.
set -u
M="$1/mtcsim"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
args="tests/lua/mpi_bulk.lua --set scale=0.01 --set days=0.5 --seed 7 --summary all"
. tests/lib/mpi_whatif.sh
mpi_single
grep -q '^update_bytes *[1-9]' "$tmp/single" || { echo "no update bytes"; cat "$tmp/single"; exit 1; }
"$M" run $args --set proofs=per_subtree --out "$tmp/ps.db" 2>"$tmp/ps.err" | summary > "$tmp/ps" \
  || { echo "per_subtree run failed"; cat "$tmp/ps.err"; exit 1; }
d=$(diff "$tmp/single" "$tmp/ps" | grep '^[<>]' | grep -Ev 'update_(bytes|publication_bytes|snapshot_bytes)' | wc -l)
[ "$d" -eq 0 ] || { echo "bulk and per_subtree differ beyond update bytes:"; diff "$tmp/single" "$tmp/ps"; exit 1; }
! cmp -s "$tmp/single" "$tmp/ps" || { echo "bulk and per_subtree give the same update bytes"; exit 1; }
mpi_ranks
echo "bulk proofs: identical summaries ($(wc -l < "$tmp/single") lines) with a single process and 1, 2, 3 ranks; only update bytes differ from per_subtree"
