#!/bin/sh
# The test runner of `make check` and `make test`:
#
#   sh tests/run.sh [-j N] check BUILD          the quick tier
#   sh tests/run.sh [-j N] full BUILD [SANBUILD] everything
#
# check runs BUILD's C tests (tests/test_*.c) and the shell tests listed in
# CHECK_SH below. full runs BUILD's C tests and every shell test
# tests/sh_*.sh, then SANBUILD's (AddressSanitizer + UBSan) C tests and the
# shell tests listed in SAN_SH. A new test file is picked up by full with
# no edit here; add it to CHECK_SH or SAN_SH to put it in those tiers too.
#
# Tests run N at a time (default: every core), the longest first by the
# durations of the last run. Each test gets its own empty TMPDIR and its
# log in BUILD/test-logs/NAME.log; a line per test as it ends, then a
# summary, then the logs of the failed tests. Exits 1 when a test failed.
# ONLY="NAME ..." in the environment keeps only the tests of those names
# (test_x, sh_y) within the tier.
set -u

# The quick tier's shell tests: each takes under 5 s of CPU on the
# optimized build (measured: the runner prints each test's CPU time), and
# together they reach every layer the C tests do not: the mtc and mtcsim
# command lines, the Lua API and its errors, the sandbox and its limits, the
# results database's readers on damaged and read-only files, a sharded
# engine run under MPI, the tree's layout, the build's quiet output, and
# the docs' agreement with the tree. Left to make test: the scenario runs, the reports, compare, the
# certificate demos, validation and the MPI equivalence of whole runs.
CHECK_SH="sh_layout sh_units sh_mtc_inputs sh_mtc_tree sh_mldsa_cli sh_mtcsim_cli
          sh_lua_api sh_lua_errors sh_lua_sandbox sh_lua_hardening
          sh_harden_results sh_mpi_shard sh_docs_paths sh_make_quiet
          sh_docs_params sh_docs_stutter"

# The sanitized pass's shell tests. The C tests already run sanitized; these
# are the shell tests that drive C code no C test reaches: the fuzz corpora
# through the parsers, the Lua host and bindings fed hostile or wrong
# scenarios (sandbox, limits incl. the C library loops and the memory cap,
# errors, API checks), the command line's entity overrides (--set
# KIND.ENTITY.PARAM), the results database's writers and readers on
# damaged files, the command-line parsers of mtc and mtcsim, the scenario
# that turns every what-if on, a shared warm-up continued in forked
# processes (--share-warmup) and one sharded engine run (single process
# each; Open MPI trips LeakSanitizer). The others run whole scenarios whose code the optimized
# pass covers and the C tests check sanitized on small worlds.
SAN_SH="sh_fuzz_replay sh_lua_sandbox sh_lua_hardening sh_lua_errors sh_lua_api
        sh_harden_host sh_harden_results sh_mtc_inputs sh_mldsa_cli sh_mtcsim_cli
        sh_certs_bundle sh_mpi_shard sh_harden_limits sh_run_overrides
        sh_harden_memory sh_mpi_whatif sh_share_warmup"

# The longest tests by wall time in the last measured runs, longest first:
# on a clean clone, with no durations of a last run, they start first
# (then every other test, new ones among them), so that no long test
# starts last and leaves a core idle at the end. A stale list only orders
# less well.
LONG="sh_mpi_dead_rank sh_mpi_run sh_scenarios sh_validate sh_run_overrides
      test_web_groups test_pki_update sh_harden_limits test_world_integration
      sh_harden_shared sh_study sh_harden_workers test_web_pricing sh_report
      sh_mpi_whatif"

# Tests that spend most of their time waiting, not computing (mpirun's
# teardown after a rank is killed: about 60 s of 70 s): they run beside the
# N at a time, from the start, instead of holding one of the N slots.
BESIDE="sh_mpi_dead_rank"

# --one KIND BUILD FILE: runs one test (KIND c or sh), writes its log and
# result, prints its line. Called by xargs below.
if [ "${1:-}" = "--one" ]; then
  kind=$2; build=$3; file=$4
  name=$(basename "$file" .sh)
  logs="$build/test-logs"; log="$logs/$name.log"
  case "$build" in */san) export MTC_TEST_SCALE=0.2 SAN_BUILD=1 ;; *) unset MTC_TEST_SCALE SAN_BUILD ;; esac
  # short and absolute: tests may cd, Open MPI puts sockets there
  TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/mtcsim-$name.XXXXXX") || exit 1
  # traversable: tests check read-only access as another user below it
  chmod 755 "$TMPDIR"; export TMPDIR
  s=$(date +%s.%N)
  if [ "$kind" = sh ]; then sh "$file" "$build" >"$log" 2>&1
  elif [ -x "$file" ]; then "$file" >"$log" 2>&1
  else echo "$file is not built" >"$log"; false; fi
  rc=$?
  e=$(date +%s.%N)
  # the test's CPU time (user + system, children of this shell: the test
  # alone but for date and mktemp): the figure that matters on a busy machine
  # (times without a subshell: a subshell would report its own children)
  times > "$logs/$name.times"
  cpu=$(awk 'NR == 2 { t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } printf "%.1f", t }' "$logs/$name.times")
  rm -f "$logs/$name.times"
  rm -rf "$TMPDIR"
  secs=$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.1f", e - s }')
  verdict=PASS; [ $rc -eq 0 ] || verdict=FAIL
  echo "$verdict $secs $cpu" > "$logs/$name.result"
  last=$(tail -n 1 "$log" | cut -c1-80)
  printf '%s %6ss (cpu %6ss)  %-10s %-24s %s\n' "$verdict" "$secs" "$cpu" "$build" "$name" "$last"
  exit 0
fi

jobs=$(nproc 2>/dev/null || echo 2)
if [ "${1:-}" = "-j" ]; then jobs=$2; shift 2; fi
tier=${1:-}; build=${2:-}; san=${3:-}
case "$tier" in check|full) ;; *) echo "usage: sh tests/run.sh [-j N] check|full BUILD [SANBUILD]" >&2; exit 2 ;; esac
[ -n "$build" ] || { echo "tests/run.sh: no build tree given" >&2; exit 2; }

in_list() { case " $(echo $2) " in *" $1 "*) return 0 ;; esac; return 1; }

# One line per test: "SECONDS KIND BUILD FILE", SECONDS from the last run
# (unknown: 1000, so new tests start early; 2000 and more for LONG's).
list=$(mktemp) || exit 1
bin=$(mktemp -d) || exit 1
trap 'rm -f "$list" "$list.sorted"; rm -rf "$bin"' EXIT
# python3 resolved once for every test: a version manager's shim (pyenv's
# is a shell script that looks the version up at every start) costs half a
# second of CPU per start on this machine, and the tests start python3
# dozens of times; the interpreter it resolves to starts in a tenth of that.
if py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ]; then
  ln -s "$py" "$bin/python3" && PATH="$bin:$PATH" && export PATH
fi
add() {  # KIND BUILD FILE
  name=$(basename "$3" .sh)
  [ -z "${ONLY:-}" ] || in_list "$name" "$ONLY" || return 0
  prev=1000
  if [ -f "$2/test-logs/$name.result" ]; then
    prev=$(cut -d' ' -f2 "$2/test-logs/$name.result")
  else
    k=0
    for l in $LONG; do
      k=$((k + 1))
      [ "$l" = "$name" ] && prev=$((3000 - k))
    done
  fi
  echo "$prev $1 $2 $3" >> "$list"
}
plan() {  # BUILD SHELL-LIST ("all" for every shell test)
  mkdir -p "$1/test-logs"
  for src in tests/test_*.c; do
    [ -f "$src" ] && add c "$1" "$1/tests/$(basename "$src" .c)"
  done
  for t in tests/sh_*.sh; do
    [ -f "$t" ] || continue
    if [ "$2" = all ] || in_list "$(basename "$t" .sh)" "$2"; then add sh "$1" "$t"; fi
  done
}
# Every listed test must exist: a renamed test must not drop out silently.
for n in $CHECK_SH $SAN_SH; do
  [ -f "tests/$n.sh" ] || { echo "tests/run.sh: listed test tests/$n.sh does not exist" >&2; exit 2; }
done
for n in $LONG $BESIDE; do
  [ -f "tests/$n.sh" ] || [ -f "tests/$n.c" ] || { echo "tests/run.sh: LONG names tests/$n, which does not exist" >&2; exit 2; }
done
# One run at a time per build tree: two would clear each other's results.
mkdir -p "$build/test-logs" && exec 8>"$build/test-logs/.lock"
flock -n 8 || { echo "tests/run.sh: another test run is using $build" >&2; exit 2; }
if [ -n "$san" ]; then
  mkdir -p "$san/test-logs" && exec 9>"$san/test-logs/.lock"
  flock -n 9 || { echo "tests/run.sh: another test run is using $san" >&2; exit 2; }
fi
if [ "$tier" = check ]; then
  plan "$build" "$CHECK_SH"
else
  plan "$build" all
  [ -z "$san" ] || plan "$san" "$SAN_SH"
fi
sort -k1,1 -g -r "$list" > "$list.sorted"
count=$(wc -l < "$list.sorted")
echo "running $count tests ($tier tier), $jobs at a time"
start=$(date +%s)
# The results of this run only: clear the previous ones first (the
# durations were read above).
while read -r _ _ b f; do rm -f "$b/test-logs/$(basename "$f" .sh).result"; done < "$list.sorted"
# the tests that wait run beside the pool (their lines interleave)
beside_pids=""
while read -r _ k b f; do
  if in_list "$(basename "$f" .sh)" "$BESIDE"; then
    sh "$0" --one "$k" "$b" "$f" & beside_pids="$beside_pids $!"
  fi
done < "$list.sorted"
while read -r _ k b f; do
  in_list "$(basename "$f" .sh)" "$BESIDE" || echo "$k $b $f"
done < "$list.sorted" | xargs -P "$jobs" -L 1 sh "$0" --one
for p in $beside_pids; do wait "$p"; done
fail=0; failed=""
while read -r _ _ b f; do
  r="$b/test-logs/$(basename "$f" .sh).result"
  if [ ! -f "$r" ] || [ "$(cut -d' ' -f1 "$r")" != PASS ]; then
    fail=$((fail+1)); failed="$failed $b/test-logs/$(basename "$f" .sh).log"
  fi
done < "$list.sorted"
for l in $failed; do
  echo "=== FAILED: $l (last 60 lines)"
  tail -n 60 "$l" | sed 's/^/    /'
done
echo "tests: $((count-fail))/$count passed in $(( $(date +%s) - start ))s ($tier tier, $jobs at a time)"
[ $fail -eq 0 ]
