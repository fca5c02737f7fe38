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
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_plm_rsh_agent=false
args="scenarios/many-cas.lua --set ncas=4 --set tail_share=0.6 --set issuance=2e4 --set scale=0.01 --set days=0.5 --seed 5 --summary all"
summary() { grep -v '^#' | grep -v '^sign_cpu_us '; }
"$M" run $args --out "$tmp/single.db" 2>"$tmp/single.err" | summary > "$tmp/single" \
  || { echo "single-process run failed"; cat "$tmp/single.err"; exit 1; }
# four CAs: each advertised in every MTC-aware ClientHello
grep -q '^clienthello_trust_anchors_bytes.mean *[1-9]' "$tmp/single" || { echo "no trust-anchor bytes"; cat "$tmp/single"; exit 1; }
n=$(sqlite3 "$tmp/single.db" "select count(*) from param where entity_kind='ca' and name='rate'")
[ "$n" = 4 ] || { echo "expected 4 CAs, found $n"; exit 1; }
if [ -n "${SAN_BUILD:-}" ]; then
  echo "sanitized build: single-process run only (Open MPI trips LeakSanitizer)"; exit 0
fi
command -v mpirun >/dev/null 2>&1 || { echo "mpirun missing (make deps installs Open MPI)"; exit 1; }
for np in 1 2 3; do
  mpirun --oversubscribe -np $np "$M" run $args --out "$tmp/np$np.db" 2>"$tmp/np$np.err" \
    | summary > "$tmp/np$np" || { echo "mpirun -np $np failed"; tail "$tmp/np$np.err"; exit 1; }
  if ! cmp -s "$tmp/single" "$tmp/np$np"; then
    echo "np=$np summary differs from the single process:"; diff "$tmp/single" "$tmp/np$np"; exit 1
  fi
done
echo "many CAs: identical summaries ($(wc -l < "$tmp/single") lines) with a single process and 1, 2, 3 ranks"
