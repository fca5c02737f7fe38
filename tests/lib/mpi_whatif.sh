# Sourced by the MPI equivalence tests (tests/sh_mpi_whatif.sh,
# tests/sh_mpi_run.sh) after they set M (the mtcsim binary), tmp (a
# scratch folder) and args (the run's arguments). mpi_single runs one
# process and keeps its summary in $tmp/single; mpi_ranks reruns under
# mpirun -np N for each N of $nps (default "1 2 3"; a scenario's own test
# may keep to "2 3", the ranks that shard, when sh_mpi_run covers one rank)
# and exits 1 at the first summary that differs or the
# first database that does not hold exactly one completed run (rank 0
# alone writes it). sign_cpu_us is excluded: it is measured CPU time, not
# a simulated quantity.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_plm_rsh_agent=false

summary() { grep -v '^#' | grep -v '^sign_cpu_us '; }

mpi_single() {
  "$M" run $args "$@" --out "$tmp/single.db" 2>"$tmp/single.err" | summary > "$tmp/single" \
    || { echo "single-process run failed"; cat "$tmp/single.err"; exit 1; }
}

# Under the sanitizers only the single process runs (Open MPI trips
# LeakSanitizer): prints why and exits 0.
mpi_ranks() {
  if [ -n "${SAN_BUILD:-}" ]; then
    echo "sanitized build: single-process run only (Open MPI trips LeakSanitizer)"; exit 0
  fi
  command -v mpirun >/dev/null 2>&1 || { echo "mpirun missing (make deps installs Open MPI)"; exit 1; }
  for n in ${nps:-1 2 3}; do
    mpirun --oversubscribe -np $n "$M" run $args --out "$tmp/np$n.db" 2>"$tmp/np$n.err" \
      | summary > "$tmp/np$n" || { echo "mpirun -np $n failed"; tail "$tmp/np$n.err"; exit 1; }
    if ! cmp -s "$tmp/single" "$tmp/np$n"; then
      echo "np=$n summary differs from the single process:"; diff "$tmp/single" "$tmp/np$n"; exit 1
    fi
    st=$(sqlite3 "$tmp/np$n.db" "select count(*) || ' ' || group_concat(status) from run")
    [ "$st" = "1 completed" ] || { echo "np=$n database runs: $st"; exit 1; }
  done
}
