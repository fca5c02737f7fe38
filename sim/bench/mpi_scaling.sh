#!/bin/sh
# `make bench-mpi`: strong scaling of a sharded run from 1 to 2 ranks, and
# the measurements behind a cluster estimate (docs/mpi.md):
#   fixed cost per rank  - the PKI replay every rank does (clients = 1)
#   cost per client-day  - from a run with CLIENTS browsers
#   memory per client    - peak RSS growth per browser
#   communication        - metrics bytes gathered on rank 0
# Prints `name value unit` lines. Wall times: this machine is shared, so
# each configuration is run REPS times and the best is kept.
set -eu
build=${1:-build}
M="$build/mtcsim"
S=sim/bench/mpi_scaling.lua
CLIENTS=${CLIENTS:-1000000}
DAYS=${DAYS:-1}
REPS=${REPS:-1}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_plm_rsh_agent=false
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# best wall time and peak RSS (KiB) of REPS runs of a command
best() {
  b=""; rss=0
  for i in $(seq "$REPS"); do
    /usr/bin/time -f "%e %M" -o "$tmp/t" "$@" > "$tmp/out" 2>/dev/null
    read -r w r < "$tmp/t"
    if [ -z "$b" ] || [ "$(echo "$w < $b" | bc)" = 1 ]; then b=$w; rss=$r; fi
  done
  echo "$b $rss"
}

set -- run "$S" --set days="$DAYS" --quiet
read -r t_fixed rss_fixed <<EOF2
$(best "$M" "$@" --set clients=1)
EOF2
read -r t_one rss_one <<EOF2
$(best "$M" "$@" --set clients="$CLIENTS")
EOF2
read -r t_np1 _ <<EOF2
$(best mpirun -np 1 "$M" "$@" --set clients="$CLIENTS")
EOF2
read -r t_np2 _ <<EOF2
$(best mpirun -np 2 "$M" "$@" --set clients="$CLIENTS")
EOF2
mpirun -np 2 "$M" run "$S" --set days="$DAYS" --set clients="$CLIENTS" 2>/dev/null \
  | sed -n 's/^# sharded over 2 ranks: \([0-9]*\) bytes.*/\1/p' > "$tmp/bytes"
bytes=$(cat "$tmp/bytes")

echo "clients $CLIENTS clients"
echo "sim_days $DAYS days"
echo "wall_fixed_pki_replay $t_fixed s"
echo "wall_single_process $t_one s"
echo "wall_mpi_np1 $t_np1 s"
echo "wall_mpi_np2 $t_np2 s"
echo "mpi_speedup_2 $(echo "scale=3; $t_np1 / $t_np2" | bc) x"
echo "cpu_s_per_client_day $(echo "scale=9; ($t_one - $t_fixed) / $CLIENTS / $DAYS" | bc) s"
echo "rss_bytes_per_client $(echo "scale=1; ($rss_one - $rss_fixed) * 1024 / $CLIENTS" | bc) B"
echo "metrics_bytes_gathered_np2 $bytes B"
echo "load_average $(cut -d' ' -f1 /proc/loadavg)"
